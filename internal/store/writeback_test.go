package store

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

func TestTransactionLabelsAndCategoryTree(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	plain := tx("t2", "HELD", -2)
	plain.CategoryID, plain.ParentCategoryID, plain.IsCategorizable = nil, nil, false
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "SETTLED", -1, "b", "a"), plain}); err != nil {
		t.Fatal(err)
	}
	got, err := s.TransactionLabels(ctx, []string{"t1", "t2", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Labels{
		"t1": {Description: "Coffee t1", IsCategorizable: true, CategoryID: "restaurants-and-cafes", Tags: []string{"a", "b"}},
		"t2": {Description: "Coffee t2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("labels:\n got %+v\nwant %+v", got, want)
	}

	cats := []bank.Category{{ID: "good-life", Name: "Good Life", Raw: []byte(`{}`)},
		{ID: "takeaway", Name: "Takeaway", ParentID: ptr("good-life"), Raw: []byte(`{}`)},
		{ID: "booze", Name: "Booze", ParentID: ptr("good-life"), Raw: []byte(`{}`)},
		{ID: "home", Name: "Home", Raw: []byte(`{}`)}}
	if err := s.ReplaceCategories(ctx, cats); err != nil {
		t.Fatal(err)
	}
	tree, err := s.CategoryTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != 4 || !slices.Equal(tree["good-life"].Children, []string{"booze", "takeaway"}) ||
		tree["takeaway"].ParentID != "good-life" || len(tree["takeaway"].Children) != 0 ||
		tree["home"].ParentID != "" || len(tree["home"].Children) != 0 {
		t.Errorf("tree = %+v", tree)
	}
}
