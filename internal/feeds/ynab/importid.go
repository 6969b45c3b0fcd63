package ynab

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// YNAB keeps a deleted transaction's import id: a transaction created
// later with the same import id on the same account is reported in
// duplicate_import_ids and not created. A bank transaction whose row was
// deleted (the bank dropped it, then it reappeared; or the person deleted
// it and asked for it back) is therefore created again under a
// re-import id: "r<N>:" and the bank id's 32 hex digits without hyphens,
// N = 2, 3, ... (at most 36 characters, as YNAB allows). Rows read back
// carry the bank id whatever the generation.

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	reimportRE = regexp.MustCompile(`^r([2-9]|[1-9][0-9]):([0-9a-f]{32})$`)
)

// maxImportID is YNAB's longest import id.
const maxImportID = 36

// encodeImportID is the import id of generation gen (1: the bank id).
func encodeImportID(bank string, gen int) (string, error) {
	if gen <= 1 {
		if len(bank) > maxImportID || bank == "" {
			return "", fmt.Errorf("import id %q: not 1 to %d characters", bank, maxImportID)
		}
		return bank, nil
	}
	if !uuidRE.MatchString(bank) {
		return "", fmt.Errorf("bank id %q deleted in ynab cannot be imported again: not a lowercase uuid", bank)
	}
	if gen > 99 {
		return "", fmt.Errorf("bank id %q imported more than 99 times", bank)
	}
	return "r" + strconv.Itoa(gen) + ":" + strings.ReplaceAll(bank, "-", ""), nil
}

// decodeImportID is the bank id and generation of an import id (the
// import id itself, generation 1, when it is not a re-import id).
func decodeImportID(imp string) (bank string, gen int) {
	m := reimportRE.FindStringSubmatch(imp)
	if m == nil {
		return imp, 1
	}
	gen, _ = strconv.Atoi(m[1])
	h := m[2]
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], gen
}
