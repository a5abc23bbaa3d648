// Package hostile holds end-to-end tests of weir against hostile input:
// statements nested a million deep, invalid bytes, a full disk, SIGKILLs
// at awkward moments. Each test talks to a real weir process over the
// PostgreSQL wire protocol (tests/testenv) and checks that the server
// answers with PostgreSQL's SQLSTATE and stays up.
package hostile
