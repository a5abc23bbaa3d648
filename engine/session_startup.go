package engine

import (
	"sort"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// applyStartupOptions applies the settings a client gave in its
// StartupMessage, once the session's own role is known: each parameter
// that names a setting (application_name, DateStyle, search_path, ...)
// and each `-c name=value` or `--name=value` of the options parameter
// (libpq's PGOPTIONS), as PostgreSQL does. They become the settings'
// reset values. A value the setting refuses fails the connection, and
// role goes through the same membership check as SET ROLE, so a client
// cannot act as a role it could not SET ROLE to; session_authorization
// is checked as SET SESSION AUTHORIZATION (42501 unless the
// authenticated role is a superuser or the role itself) and otherwise
// ignored, as in PostgreSQL. Parameters that name no
// setting weir knows, and read-only ones, are ignored.
func (s *Session) applyStartupOptions(opts map[string]string) error {
	pairs := make([][2]string, 0, len(opts))
	for k, v := range opts {
		if k == "options" {
			continue
		}
		pairs = append(pairs, [2]string{k, v})
	}
	// Map order is random; apply in a fixed order so that errors are
	// reproducible. The options parameter's -c switches come last and
	// win, as in PostgreSQL.
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	if o, ok := opts["options"]; ok {
		more, err := parseStartupOptions(o)
		if err != nil {
			return err
		}
		pairs = append(pairs, more...)
	}
	for _, kv := range pairs {
		st, err := lookupSetting(kv[0])
		if err != nil || st.readOnly {
			continue
		}
		v := kv[1]
		if st.name == "session_authorization" {
			// Checked as SET SESSION AUTHORIZATION is, and then left
			// be: PostgreSQL's session user stays the authenticated
			// role whatever the client asked for at startup.
			if _, err := s.checkSessionAuthorization(v); err != nil {
				return err
			}
			continue
		}
		if st.name == "role" {
			if v, err = s.checkSetRole(v); err != nil {
				return err
			}
		}
		if err := s.maySet(st); err != nil {
			return err
		}
		if err := s.set(st, v); err != nil {
			return err
		}
		if s.startup == nil {
			s.startup = map[string]string{}
		}
		s.startup[st.name] = s.get(st)
	}
	return nil
}

// parseStartupOptions splits the options startup parameter as
// PostgreSQL's pg_split_opts does (words separated by white space, a
// backslash escaping the next character) and reads its settings:
// `-c name=value`, `-cname=value` and `--name=value`. Any other switch
// fails the connection, as it does in PostgreSQL.
func parseStartupOptions(o string) ([][2]string, error) {
	var words []string
	var b strings.Builder
	in, esc := false, false
	for _, r := range o {
		switch {
		case esc:
			b.WriteRune(r)
			esc, in = false, true
		case r == '\\':
			esc, in = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	var out [][2]string
	bad := func(w string) error {
		return pgerr.New(pgerr.SyntaxError, "invalid command-line argument for server process: %s", w).
			WithHint("Try \"postgres --help\" for more information.")
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		var nv string
		switch {
		case w == "-c":
			if i+1 == len(words) {
				return nil, bad(w)
			}
			i++
			nv = words[i]
		case strings.HasPrefix(w, "--"):
			nv = w[2:]
		case strings.HasPrefix(w, "-c"):
			nv = w[2:]
		default:
			return nil, bad(w)
		}
		name, val, ok := strings.Cut(nv, "=")
		if !ok {
			if strings.HasPrefix(w, "--") {
				return nil, pgerr.New(pgerr.SyntaxError, "--%s requires a value", nv)
			}
			return nil, pgerr.New(pgerr.SyntaxError, "-c %s requires a value", nv)
		}
		out = append(out, [2]string{strings.ReplaceAll(name, "-", "_"), val})
	}
	return out, nil
}
