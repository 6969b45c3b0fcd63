package ynab

import "strings"

// routes are the operations the fake serves: method, path (relative to
// /v1, with {parameters}) and YNAB's operationId, as in its description
// (ynabspec's tests check that the description routes each of them to
// the same operation).
var routes = []struct{ Method, Path, Op string }{
	{"GET", "/user", "getUser"},
	{"GET", "/plans", "getPlans"},
	{"GET", "/plans/{plan_id}", "getPlanById"},
	{"GET", "/plans/{plan_id}/accounts", "getAccounts"},
	{"GET", "/plans/{plan_id}/accounts/{account_id}", "getAccountById"},
	{"GET", "/plans/{plan_id}/categories", "getCategories"},
	{"GET", "/plans/{plan_id}/payees", "getPayees"},
	{"GET", "/plans/{plan_id}/transactions", "getTransactions"},
	{"GET", "/plans/{plan_id}/accounts/{account_id}/transactions", "getTransactionsByAccount"},
	{"POST", "/plans/{plan_id}/transactions", "createTransaction"},
	{"PATCH", "/plans/{plan_id}/transactions", "updateTransactions"},
	{"GET", "/plans/{plan_id}/transactions/{transaction_id}", "getTransactionById"},
	{"PUT", "/plans/{plan_id}/transactions/{transaction_id}", "updateTransaction"},
	{"DELETE", "/plans/{plan_id}/transactions/{transaction_id}", "deleteTransaction"},
}

// match finds the operation of method and rel, and its path parameters;
// "" when the fake serves none there.
func match(method, rel string) (string, map[string]string) {
	got := strings.Split(strings.Trim(rel, "/"), "/")
	for _, r := range routes {
		if r.Method != method {
			continue
		}
		want := strings.Split(strings.Trim(r.Path, "/"), "/")
		if len(want) != len(got) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, w := range want {
			switch {
			case strings.HasPrefix(w, "{"):
				if got[i] == "" {
					ok = false
				}
				params[strings.Trim(w, "{}")] = got[i]
			case w != got[i]:
				ok = false
			}
		}
		if ok {
			return r.Op, params
		}
	}
	return "", nil
}
