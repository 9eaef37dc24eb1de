#!/bin/sh
# Fetch the authors' raw data for IBM RC25482 (github.com/thewmf/kvm-docker-comparison) at the
# pinned commit, verify every file the project reads, and only then put it in place.
#
# usage: sh scripts/get-ibm-data.sh [DEST]
#
#   DEST  where the authors' tree goes (default: data/external/kvm-docker-comparison under the
#         repository root). The files the project reads from the authors' later-deleted or
#         overwritten versions go next to it, into DEST/../kvm-docker-comparison-history/,
#         named name@shortcommit (the names the shared reference folder uses).
#
# What it does:
#   1. DEST and the history folder already there and matching the sums: says so, exits 0,
#      touches no network. (History folder missing but DEST a clone made by this script: the
#      history files are written from DEST's own git objects, again without network.)
#   2. Otherwise: a partial git clone (commits and trees only) into DEST.partial.<pid>, a
#      sparse checkout of the pinned commit restricted to the files listed in
#      data/reference/kvm-docker-comparison.sha256 (so only their contents are downloaded,
#      not the authors' large binaries), and verification of those files against that list
#      (sha256sum -c format, paths relative to the authors' tree). The history files are
#      written with `git cat-file blob COMMIT:PATH` (list below) into a partial history folder
#      and verified against data/reference/kvm-docker-comparison-history.sha256 (paths = file
#      names). Only when everything verifies are the partial folders renamed into place.
#      Nothing is left behind on failure; an existing DEST that does not verify is left alone.
#
# Environment:
#   OVERHEAD_IBM_URL     where to clone from (default https://github.com/thewmf/kvm-docker-comparison);
#                        a mirror, or file:///path/to/repo.git for tests.
#   OVERHEAD_IBM_COMMIT  FOR TESTS ONLY: the commit to check out instead of the pinned one. The
#                        sums still have to match, so this only helps a test mirror whose commit
#                        holds the same files under another hash.
#
# Exit status: 0 data in place and verified; 1 other error (no git, commit not in the
# repository, DEST appeared meanwhile); 3 could not fetch (offline: one line on stderr saying
# what to run when online); 4 verification failed (the files are named on stderr; DEST is left
# as it was: absent, or, if it already existed, untouched).

set -u

PINNED_COMMIT=6820500beab45d7c8d005caefb40eda7381eb05f
DEFAULT_URL=https://github.com/thewmf/kvm-docker-comparison
HISTORY_NAME=kvm-docker-comparison-history
LOCAL_UPLOAD_PACK="git -c uploadpack.allowFilter=true upload-pack"

# The history files: name in the history folder | commit | path in the authors' repository.
# Each is that path's content at that commit (the file was later overwritten or deleted).
history_files() {
    cat <<'EOF'
fio_results.xlsx@77d69a2|77d69a21e8167df09582a247e93af39652cb511f|fio/results/fio results.xlsx
gups.xlsx@5c086ae|5c086ae135cd0fddcee768d4d194e479c69e42ef|RandomAccess/results/gups.xlsx
linpack.xlsx@f9a6e63|f9a6e63589786d023ab0b8352b3df775e15d3139|linpack/results/linpack.xlsx
mysql_perfgov_MYSQL.png@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/MYSQL.png
mysql_perfgov_results-latency.csv@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/results-latency.csv
mysql_perfgov_results-latency95.csv@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/results-latency95.csv
mysql_perfgov_results-percentage.csv@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/results-percentage.csv
mysql_perfgov_results-reqs.csv@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/results-reqs.csv
mysql_perfgov_results-total.csv@d925ec3|d925ec3254763a9eecf1cdb13da72c349cad85f8|mysql/results/performance-governor/results-total.csv
nuttcp.xlsx@ee8dd2d|ee8dd2d572c20b76ace4061a7f17305caa272718|nuttcp/results/nuttcp.xlsx
nuttcp.xlsx@f2b940f|f2b940f8240fea73cd86cbcb85f2d25df53bea46|nuttcp/results/nuttcp.xlsx
EOF
}

say() { printf '%s\n' "$*"; }
err() { printf 'get-ibm-data: %s\n' "$*" >&2; }

# A word quoted for the shell when it needs it (for the command printed when offline).
q() {
    case $1 in
        '' | *[!A-Za-z0-9_./:@=+-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s' "$1" ;;
    esac
}

if command -v sha256sum >/dev/null 2>&1; then
    sha256_check() { sha256sum -c -- "$1"; }
    sha256_of() { sha256sum <"$1" | cut -c1-64; }
elif command -v shasum >/dev/null 2>&1; then
    sha256_check() { shasum -a 256 -c -- "$1"; }
    sha256_of() { shasum -a 256 <"$1" | cut -c1-64; }
else
    err "neither sha256sum nor shasum found: cannot verify the data"
    exit 1
fi

# verify DIR SUMS: check DIR's files against SUMS; on failure name the files on stderr.
verify() {
    v_out=$(cd "$1" && sha256_check "$2" 2>/dev/null)
    v_status=$?
    [ "$v_status" -eq 0 ] && return 0
    v_bad=$(printf '%s\n' "$v_out" | sed -n 's/: FAILED.*$//p')
    v_count=$(printf '%s\n' "$v_bad" | grep -c .)
    err "verification failed in $1: $v_count file(s) missing or different from $(basename "$2"):"
    printf '%s\n' "$v_bad" | sed 's/^/  /' >&2
    return 1
}

# has_commit DIR: DIR is a git clone of its own holding the commit to check out.
has_commit() {
    [ -d "$1/.git" ] && git -C "$1" cat-file -e "$commit^{commit}" 2>/dev/null
}

# write_history GITDIR OUT: the history files from GITDIR's repository into OUT.
write_history() {
    mkdir -p "$2" || return 1
    # The commits in the history of the checked-out one. (Asking a partial clone for an object
    # it does not have makes it ask the remote, so absent commits are not asked for.)
    h_known=$(git -C "$1" rev-list "$commit" 2>/dev/null)
    history_files | while IFS='|' read -r h_name h_commit h_path; do
        h_want=$(awk -v n="$h_name" 'substr($0, 67) == n { print substr($0, 1, 64) }' "$hsums")
        h_file=$2/$h_name
        if printf '%s\n' "$h_known" | grep -qx "$h_commit" &&
            git -C "$1" cat-file blob "$h_commit:$h_path" >"$h_file" 2>/dev/null &&
            [ "$(sha256_of "$h_file")" = "$h_want" ]; then
            continue
        fi
        # That commit is not in this clone (a mirror with other hashes, a test mirror): take
        # the version of the path, in the history of the checked-out commit, with the listed sum.
        for h_rev in $(git -C "$1" rev-list "$commit" -- "$h_path" 2>/dev/null); do
            if git -C "$1" cat-file blob "$h_rev:$h_path" >"$h_file" 2>/dev/null &&
                [ "$(sha256_of "$h_file")" = "$h_want" ]; then
                break
            fi
        done
    done
    return 0
}

# clone DIR: a partial clone (commits and trees; file contents are fetched when checked out).
# A local mirror (file:// or a path) is asked to filter too, which it only does when told so;
# this also lets a mirror that lacks the authors' large binaries, which the project does not
# read, serve the clone.
clone() {
    case $url in
        file://* | /* | ./* | ../*)
            GIT_TERMINAL_PROMPT=0 git clone -q --no-checkout --filter=blob:none \
                -c core.autocrlf=false -c "remote.origin.uploadpack=$LOCAL_UPLOAD_PACK" \
                --upload-pack="$LOCAL_UPLOAD_PACK" -- "$url" "$1" >/dev/null 2>&1 ;;
        *)
            GIT_TERMINAL_PROMPT=0 git clone -q --no-checkout --filter=blob:none \
                -c core.autocrlf=false -- "$url" "$1" >/dev/null 2>&1 ;;
    esac
}

# offline: the one line saying the data could not be fetched and what to run when online.
offline() {
    o_cmd="sh $(q "$here/get-ibm-data.sh") $(q "$dest")"
    [ -n "${OVERHEAD_IBM_COMMIT:-}" ] && o_cmd="OVERHEAD_IBM_COMMIT=$(q "$commit") $o_cmd"
    [ -n "${OVERHEAD_IBM_URL:-}" ] && o_cmd="OVERHEAD_IBM_URL=$(q "$url") $o_cmd"
    err "could not fetch the authors' data from $url (offline?); when online run: $o_cmd (or set OVERHEAD_REFERENCE to a folder that holds kvm-docker-comparison/)"
    exit 3
}

here=$(cd "$(dirname "$0")" && pwd -P) || exit 1
root=$(dirname "$here")
sums=$root/data/reference/kvm-docker-comparison.sha256
hsums=$root/data/reference/$HISTORY_NAME.sha256
url=${OVERHEAD_IBM_URL:-$DEFAULT_URL}
commit=${OVERHEAD_IBM_COMMIT:-$PINNED_COMMIT}
dest_arg=${1:-$root/data/external/kvm-docker-comparison}

for f in "$sums" "$hsums"; do
    [ -f "$f" ] || { err "missing $f (run this script from a checkout of the project)"; exit 1; }
done
command -v git >/dev/null 2>&1 || { err "git is needed to fetch the authors' data"; exit 1; }

parent_arg=$(dirname "$dest_arg")
created_parent=no
[ -d "$parent_arg" ] || created_parent=yes
mkdir -p "$parent_arg" || exit 1
parent=$(cd "$parent_arg" && pwd -P) || exit 1
dest=$parent/$(basename "$dest_arg")
hist=$parent/$HISTORY_NAME
partial=$dest.partial.$$
hpartial=$hist.partial.$$
nfiles=$(grep -c . "$sums")
nhist=$(grep -c . "$hsums")

cleanup() {
    rm -rf "$partial" "$hpartial"
    if [ "$created_parent" = yes ]; then rmdir "$parent" 2>/dev/null; fi
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

dest_ok=no
hist_ok=no
if [ -e "$dest" ]; then
    verify "$dest" "$sums" || {
        err "$dest exists but is not the pinned data; move it away and run again"
        exit 4
    }
    dest_ok=yes
fi
if [ -e "$hist" ]; then
    verify "$hist" "$hsums" || {
        err "$hist exists but is not the expected history files; move it away and run again"
        exit 4
    }
    hist_ok=yes
fi
if [ "$dest_ok" = yes ] && [ "$hist_ok" = yes ]; then
    say "already present and verified: $dest ($nfiles files) and $hist ($nhist files)"
    exit 0
fi

# Where the history files come from: the clone being made, or DEST's own clone.
source_repo=$dest
if [ "$dest_ok" = no ] || ! has_commit "$dest"; then
    source_repo=$partial
    say "fetching $url at commit $commit ..."
    clone "$partial" || offline
    if ! git -C "$partial" cat-file -e "$commit^{commit}" 2>/dev/null; then
        err "commit $commit is not in $url"
        exit 1
    fi
    # Check out only the listed files: their blobs are fetched now, nothing else is.
    mkdir -p "$partial/.git/info" &&
        sed 's/^[0-9a-f]\{64\} [ *]//; s/[][*?\\]/\\&/g; s|^|/|' "$sums" >"$partial/.git/info/sparse-checkout" &&
        git -C "$partial" config core.sparseCheckout true || exit 1
    git -C "$partial" -c advice.detachedHead=false checkout -q --detach "$commit" >/dev/null 2>&1 || offline
    if [ "$dest_ok" = no ]; then
        verify "$partial" "$sums" || exit 4
    fi
fi

if [ "$hist_ok" = no ]; then
    write_history "$source_repo" "$hpartial" || { err "could not write $hpartial"; exit 1; }
    verify "$hpartial" "$hsums" || exit 4
fi

# Everything verified: put it in place.
if [ "$dest_ok" = no ]; then
    [ -e "$dest" ] && { err "$dest appeared while fetching; left as it is"; exit 1; }
    mv "$partial" "$dest" || exit 1
fi
if [ "$hist_ok" = no ]; then
    [ -e "$hist" ] && { err "$hist appeared while fetching; left as it is"; exit 1; }
    mv "$hpartial" "$hist" || exit 1
fi
created_parent=no
if [ "$dest_ok" = no ]; then
    say "fetched and verified: $dest ($nfiles files at commit $commit)"
else
    say "already present and verified: $dest ($nfiles files)"
fi
if [ "$hist_ok" = no ]; then
    say "written and verified: $hist ($nhist files)"
else
    say "already present and verified: $hist ($nhist files)"
fi
