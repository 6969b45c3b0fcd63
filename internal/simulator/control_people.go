package simulator

import (
	"net/http"
	"time"
)

// The control API of a household: its people, their tokens and Up-to-Up
// payments between them (see people.go and household.go).

// personJSON is a person of GET /_sim/people.
type personJSON struct {
	Name        string   `json:"name"`
	DisplayName string   `json:"displayName"`
	FullName    string   `json:"fullName"`
	CustomerID  string   `json:"customerId"`
	Token       string   `json:"token"`
	Revoked     bool     `json:"revoked"`
	CardSuffix  string   `json:"cardSuffix"`
	AccountIDs  []string `json:"accountIds"`
	Requests    int64    `json:"requests"`
}

// paymentJSON is the body of POST /_sim/payments.
type paymentJSON struct {
	From            string       `json:"from"`
	To              string       `json:"to"`
	FromAccountID   string       `json:"fromAccountId"`
	ToAccountID     string       `json:"toAccountId"`
	AmountBaseUnits int64        `json:"amountBaseUnits"`
	Message         string       `json:"message"`
	CreatedAt       *time.Time   `json:"createdAt"`
	Lag             jsonDuration `json:"lag"`
	Held            bool         `json:"held"`
}

func (b *Bank) ctlPeople(w http.ResponseWriter, _ *http.Request, _ []string) error {
	ps := b.People()
	out := make([]personJSON, len(ps))
	for i, p := range ps {
		out[i] = personJSON(p)
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out, "jointAccountId": b.JointAccount()})
}

// pathPerson is the person named in a control path: 404 when unknown.
func (b *Bank) pathPerson(name string) (*person, error) {
	p, err := b.personNamed(name)
	if err != nil {
		return nil, &controlError{http.StatusNotFound, err}
	}
	return p, nil
}

// queryPerson is the person of ?person=NAME (404 when unknown), nil
// without one.
func (b *Bank) queryPerson(r *http.Request) (*person, error) {
	name := r.URL.Query().Get("person")
	if name == "" {
		return nil, nil
	}
	return b.pathPerson(name)
}

func (b *Bank) ctlPersonRevoke(w http.ResponseWriter, _ *http.Request, params []string) error {
	p, err := b.pathPerson(params[0])
	if err != nil {
		return err
	}
	p.revoke()
	writeNoContent(w)
	return nil
}

func (b *Bank) ctlPersonRestore(w http.ResponseWriter, _ *http.Request, params []string) error {
	p, err := b.pathPerson(params[0])
	if err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusOK, map[string]string{"token": p.restore()})
}

func (b *Bank) ctlPersonRotate(w http.ResponseWriter, r *http.Request, params []string) error {
	if _, err := b.pathPerson(params[0]); err != nil {
		return err
	}
	var in struct {
		Token string `json:"token"`
	}
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	tok, err := b.RotatePersonToken(params[0], in.Token)
	if err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusOK, map[string]string{"token": tok})
}

func (b *Bank) ctlPay(w http.ResponseWriter, r *http.Request, _ []string) error {
	var in paymentJSON
	if err := readControlJSON(w, r, &in); err != nil {
		return err
	}
	pay := Payment{From: in.From, To: in.To, FromAccountID: in.FromAccountID, ToAccountID: in.ToAccountID,
		AmountBaseUnits: in.AmountBaseUnits, Message: in.Message, Lag: time.Duration(in.Lag), Held: in.Held}
	if in.CreatedAt != nil {
		pay.CreatedAt = *in.CreatedAt
	}
	out, inID, err := b.PayPerson(pay)
	if err != nil {
		return err
	}
	return writeControlJSON(w, http.StatusCreated, map[string]any{"ids": []string{out, inID}})
}
