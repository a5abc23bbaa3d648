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

# need_go puts a Go toolchain of at least go.mod's version first on PATH:
# the one on PATH when it is new enough (or /usr/local/go's), else the
# official toolchain fetched once from the Go module proxy (the module
# golang.org/toolchain, as `go` itself fetches newer toolchains) into
# ~/.cache/weir. Debian's golang-go is older than weir needs.
need_go() {
  local root want have arch dir proxy zip
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  want="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$root/go.mod")"
  go_ok() {
    have="$("$1" env GOVERSION 2>/dev/null)" || return 1
    have="${have#go}"
    [[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" == "$want" ]]
  }
  for g in "$(command -v go 2>/dev/null)" /usr/local/go/bin/go; do
    if [[ -n "$g" && -x "$g" ]] && go_ok "$g"; then
      export PATH="$(dirname "$g"):$PATH"
      return 0
    fi
  done
  case "$(uname -m)" in
    x86_64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "$(basename "$0") needs Go $want for $(uname -m): install it and run again" >&2; exit 1 ;;
  esac
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/weir/go$want.linux-$arch"
  if [[ ! -x "$dir/bin/go" ]]; then
    need curl unzip
    proxy="${GOPROXY:-https://proxy.golang.org}"
    proxy="${proxy%%,*}"
    [[ "$proxy" == direct || "$proxy" == off ]] && proxy=https://proxy.golang.org
    zip="$(mktemp)"
    echo "== fetching Go $want from $proxy"
    curl -fsSL -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$want.linux-$arch.zip"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    unzip -q "$zip" -d "$dir.tmp"
    rm -f "$zip"
    rm -rf "$dir" && mv "$dir.tmp/golang.org/toolchain@v0.0.1-go$want.linux-$arch" "$dir"
    rm -rf "$dir.tmp"
  fi
  export PATH="$dir/bin:$PATH"
  # The fetched toolchain is the one go.mod asks for: no switching.
  export GOTOOLCHAIN=local
}

# need_free_ports PORT...: fail, naming the port, when something on this
# machine already listens on a loopback port a script is about to listen
# on (another weir, a broker): the script would otherwise talk to that
# server instead of its own.
need_free_ports() {
  local p
  for p in "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "port $p is in use on 127.0.0.1: stop what listens there, or pick free ports (PORT=... KAFKA_PORT=...)" >&2
      exit 1
    fi
  done
}
