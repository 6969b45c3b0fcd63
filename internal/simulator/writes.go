package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// Write handlers: PATCH category, POST/DELETE tags. Bodies are validated
// before the transaction is looked up, but an unknown transaction wins (404).

const maxBodyBytes = 1 << 20

// readData decodes a {"data": ...} body and returns the raw data value.
func readData(w http.ResponseWriter, r *http.Request) (json.RawMessage, *apiError) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return nil, invalidBody("", "The request body could not be read: "+err.Error())
	}
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, invalidBody("", "The request body is not a valid JSON object: "+err.Error())
	}
	if body.Data == nil {
		return nil, invalidBody("/data", "The data member is required.")
	}
	return body.Data, nil
}

// identifier parses a {"type": typ, "id": "..."} object at pointer.
func identifier(raw json.RawMessage, typ, pointer string) (string, *apiError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return "", invalidBody(pointer, "Expected a resource identifier object.")
	}
	var gotType, id string
	if err := json.Unmarshal(obj["type"], &gotType); err != nil || gotType != typ {
		return "", invalidBody(pointer+"/type", "type must be "+strconv.Quote(typ)+".")
	}
	if err := json.Unmarshal(obj["id"], &id); err != nil || id == "" {
		return "", invalidBody(pointer+"/id", "id must be a non-empty string.")
	}
	return id, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func (b *Bank) handlePatchCategory(rq *request) {
	data, aerr := readData(rq.w, rq.r)
	categoryID := ""
	if aerr == nil && !isNull(data) {
		categoryID, aerr = identifier(data, "categories", "/data")
	}
	b.mu.Lock()
	t, ok := b.visibleTx(rq.who, rq.params[0])
	var err error
	if ok && aerr == nil {
		if err = b.setCategoryLocked(t, categoryID); err == nil {
			b.recordWriteLocked(APIWrite{Person: rq.who.name, TransactionID: t.ID, Op: "category", CategoryID: categoryID})
		}
	}
	b.mu.Unlock()
	switch {
	case !ok:
		writeError(rq.w, notFound("No transaction with id "+strconv.Quote(rq.params[0])+"."))
	case aerr != nil:
		writeError(rq.w, aerr)
	case errors.Is(err, ErrNotCategorizable):
		writeError(rq.w, &apiError{status: http.StatusUnprocessableEntity, title: "Transaction Not Categorizable",
			detail: "This transaction does not support categories (isCategorizable is false).", pointer: "/data", hasSource: true})
	case err != nil:
		writeError(rq.w, invalidBody("/data/id", "The category "+strconv.Quote(categoryID)+" does not exist or is a parent category; use a child category."))
	default:
		writeNoContent(rq.w)
	}
}

// readTagLabels parses the {"data":[{"type":"tags","id":...}]} body.
func readTagLabels(w http.ResponseWriter, r *http.Request) ([]string, *apiError) {
	data, aerr := readData(w, r)
	if aerr != nil {
		return nil, aerr
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || items == nil {
		return nil, invalidBody("/data", "data must be an array of tag identifiers.")
	}
	labels := make([]string, 0, len(items))
	for i, it := range items {
		id, aerr := identifier(it, "tags", "/data/"+strconv.Itoa(i))
		if aerr != nil {
			return nil, aerr
		}
		labels = append(labels, id)
	}
	return labels, nil
}

func (b *Bank) handleAddTags(rq *request) {
	b.updateTags(rq, "tags add", func(cur, labels []string) []string { return append(slices.Clone(cur), labels...) })
}

func (b *Bank) handleRemoveTags(rq *request) {
	b.updateTags(rq, "tags remove", func(cur, labels []string) []string {
		return slices.DeleteFunc(slices.Clone(cur), func(t string) bool { return slices.Contains(labels, t) })
	})
}

// updateTags applies change to a transaction's tags (silently: no event).
func (b *Bank) updateTags(rq *request, op string, change func(cur, labels []string) []string) {
	labels, aerr := readTagLabels(rq.w, rq.r)
	b.mu.Lock()
	t, ok := b.visibleTx(rq.who, rq.params[0])
	var err error
	if ok && aerr == nil {
		if err = b.setTagsLocked(t, change(t.Tags, labels)); err == nil {
			b.recordWriteLocked(APIWrite{Person: rq.who.name, TransactionID: t.ID, Op: op, Tags: slices.Clone(labels)})
		}
	}
	b.mu.Unlock()
	switch {
	case !ok:
		writeError(rq.w, notFound("No transaction with id "+strconv.Quote(rq.params[0])+"."))
	case aerr != nil:
		writeError(rq.w, aerr)
	case errors.Is(err, ErrJointTags):
		writeError(rq.w, &apiError{status: http.StatusUnprocessableEntity, title: "Tags Not Supported",
			detail: "Tags cannot be added to transactions of a 2Up (joint) account.", pointer: "/data", hasSource: true})
	case errors.Is(err, ErrTooManyTags):
		writeError(rq.w, &apiError{status: http.StatusUnprocessableEntity, title: "Too Many Tags",
			detail: "A transaction can carry at most 6 tags.", pointer: "/data", hasSource: true})
	case err != nil:
		writeError(rq.w, invalidBody("/data", "Tag labels must be non-empty."))
	default:
		writeNoContent(rq.w)
	}
}
