package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// Labels is what the mirror knows of a transaction's category and tags,
// read before asking the bank to change them.
type Labels struct {
	Description     string
	IsCategorizable bool
	CategoryID      string   // "" when uncategorized
	Tags            []string // sorted
}

// TransactionLabels returns the labels of the mirrored transactions among
// ids; ids not mirrored are absent from the map.
func (s *Store) TransactionLabels(ctx context.Context, ids []string) (map[string]Labels, error) {
	out := map[string]Labels{}
	if len(ids) == 0 {
		return out, nil
	}
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT t.id, t.description, t.is_categorizable, t.category_id, g.tag_id
		FROM transactions AS t LEFT JOIN transaction_tags AS g ON g.transaction_id = t.id
		WHERE t.id IN (SELECT value FROM json_each(?)) ORDER BY t.id, g.tag_id`, arg)
	if err != nil {
		return nil, fmt.Errorf("read transaction labels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, desc string
		var categorizable bool
		var category, tag sql.NullString
		if err := rows.Scan(&id, &desc, &categorizable, &category, &tag); err != nil {
			return nil, fmt.Errorf("read transaction labels: %w", err)
		}
		l := out[id]
		l.Description, l.IsCategorizable, l.CategoryID = desc, categorizable, category.String
		if tag.Valid {
			l.Tags = append(l.Tags, tag.String)
		}
		out[id] = l
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read transaction labels: %w", err)
	}
	return out, nil
}

// CategoryNode is a mirrored category with its place in the tree.
type CategoryNode struct {
	ID, Name string
	ParentID string   // "" for a top-level (parent) category
	Children []string // sorted; empty for a child category
}

// CategoryTree returns every mirrored category by id.
func (s *Store) CategoryTree(ctx context.Context) (map[string]CategoryNode, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT id, name, coalesce(parent_id, '') FROM categories")
	if err != nil {
		return nil, fmt.Errorf("read categories: %w", err)
	}
	defer rows.Close()
	out := map[string]CategoryNode{}
	for rows.Next() {
		var c CategoryNode
		if err := rows.Scan(&c.ID, &c.Name, &c.ParentID); err != nil {
			return nil, fmt.Errorf("read categories: %w", err)
		}
		out[c.ID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read categories: %w", err)
	}
	for _, c := range out {
		if p, ok := out[c.ParentID]; ok && c.ParentID != "" {
			p.Children = append(p.Children, c.ID)
			out[p.ID] = p
		}
	}
	for id, c := range out {
		slices.Sort(c.Children)
		out[id] = c
	}
	return out, nil
}
