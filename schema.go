// Package bankmirror holds what belongs at the repository root: the SQLite
// schema, embedded here because //go:embed cannot reach parent directories.
package bankmirror

import _ "embed"

// Schema is schema.sql: version 1 of the mirror's database schema.
//
//go:embed schema.sql
var Schema string
