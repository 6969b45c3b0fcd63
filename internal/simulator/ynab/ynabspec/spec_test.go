package ynabspec

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestResponseValidationCatchesAMismatch proves the response check is no
// formality: a transaction list missing a required field fails it.
func TestResponseValidationCatchesAMismatch(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/v1/plans/p/transactions", nil)
	route, params, rr, err := s.route(req, "/plans/p/transactions")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	good := []byte(`{"data":{"server_knowledge":1,"transactions":[]}}`)
	if err := s.validateResponse(req.Context(), rr, route, params, nil, 200, h, good); err != nil {
		t.Fatalf("valid response refused: %v", err)
	}
	bad := []byte(`{"data":{"transactions":[]}}`)
	if err := s.validateResponse(req.Context(), rr, route, params, nil, 200, h, bad); err == nil {
		t.Fatal("a response without server_knowledge passed")
	}
	if err := s.validateResponse(req.Context(), rr, route, params, nil, 503, h, []byte(`{"error":{"id":"503"}}`)); err == nil {
		t.Fatal("an error body without name and detail passed")
	}
	if err := s.validateResponse(req.Context(), rr, route, params, nil, 201, h, good); err == nil {
		t.Fatal("an undocumented success status passed")
	}
}
