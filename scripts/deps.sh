# Sourced by the scripts that need tools beyond Go: `need TOOL...`
# installs the missing ones with apt-get (as root, or with sudo) on a
# Debian machine, and fails with what to install elsewhere. Tools:
#   psql      the PostgreSQL client (Debian package postgresql-client)
#   postgres  a PostgreSQL 15 server for the reference tests (postgresql)
#   mariadb   a MariaDB server, the target of the MySQL sink's tests
#             (mariadb-server)
#   kcat, jq  the packages of the same names

# pkg_of prints the Debian package providing tool when it is missing.
pkg_of() {
  case "$1" in
    psql) command -v psql >/dev/null 2>&1 || echo postgresql-client ;;
    postgres)
      [[ -x /usr/lib/postgresql/15/bin/postgres ]] || command -v pg_config >/dev/null 2>&1 || echo postgresql ;;
    mariadb) [[ -x /usr/sbin/mariadbd ]] || command -v mariadbd >/dev/null 2>&1 || echo mariadb-server ;;
    *) command -v "$1" >/dev/null 2>&1 || echo "$1" ;;
  esac
}

need() {
  local missing=() t p
  for t in "$@"; do
    p="$(pkg_of "$t")"
    [[ -n "$p" ]] && missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$(basename "$0") needs the packages: ${missing[*]} (install them and run it again)" >&2
    exit 1
  fi
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "$(basename "$0") needs root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "== installing ${missing[*]} (apt-get)"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}
