// Package fsinfo reads what fs.FileInfo keeps in its system-specific part
// on Unix: a file's owner, group and number of hard links. The mirror's
// files and a household's token files are checked with it. Without Unix
// ownership (ok false) nothing is known and callers check nothing.
package fsinfo
