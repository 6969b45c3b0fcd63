package alerts

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/bankmirror/bankmirror/internal/rules"
)

// LoadRules reads the rules file at path against the mirror's categories
// (rules.LoadResolved) and checks its [alert.*] tables (CheckSettings):
// what serve, the rules commands and the dashboard all read. A missing
// file is no rules when missingOK; otherwise one line naming
// BANKMIRROR_RULES_FILE.
func LoadRules(ctx context.Context, path string, missingOK bool, c rules.Categories) (*rules.Set, error) {
	set, err := rules.LoadResolved(ctx, path, missingOK, c)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no rules file at %s (set BANKMIRROR_RULES_FILE): %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	if err := CheckSettings(set); err != nil {
		return nil, err
	}
	return set, nil
}
