#!/usr/bin/env bats
# The manuals: a page per program (made by help2man, or shipped in the
# tarball) and sudoku-protocol(5); each has the sections a user looks for
# and renders without warnings; the protocol page says what PROTOCOL.md
# says; every program's --version gives the licence and the bug address.

load helpers

PROTOCOL_PAGE="$top_srcdir/man/sudoku-protocol.5"

# the programs this build has, by path (the installed scripts too)
built_programs() {
	local p
	for p in "$top_builddir"/racer/sudoku-race "$top_builddir"/workers/sudoku-* "$top_builddir"/tools/sudoku-* \
		"$top_builddir"/cuda/sudoku-gpu "$top_builddir"/contrib/sudoku-race-many "$top_builddir"/contrib/sudoku-race-cactus; do
		[ -x "$p" ] && [ -f "$p" ] && echo "$p"
	done
}

# page NAME SECTION: the page this build installs (made here, else shipped)
page() {
	local f
	for f in "$top_builddir/man/$1.$2" "$top_srcdir/man/$1.$2"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# the page as plain text, unhyphenated and unbroken, as man shows it
plain() {
	groff -k -man -t -Tutf8 -rHY=0 -rLL=1000n -P-cbou "$1" 2>/dev/null
}

need_pages() {
	page sudoku-race 1 >/dev/null ||
		skip "no man pages in this build (help2man not found, no shipped pages)"
	command -v groff >/dev/null || skip "groff not found"
}

@test "every program of the build has a man page" {
	need_pages
	local p missing=
	for p in $(built_programs); do
		page "$(basename "$p")" 1 >/dev/null || missing="$missing $(basename "$p")"
	done
	assert_equal "$missing" ""
	page sudoku-protocol 5
}

@test "each page has NAME, SYNOPSIS, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, REPORTING BUGS, SEE ALSO" {
	need_pages
	local p f s
	for p in $(built_programs); do
		f=$(page "$(basename "$p")" 1)
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES \
			"REPORTING BUGS" "SEE ALSO"; do
			grep -q "^\.SH \"\{0,1\}$s\"\{0,1\}\$" "$f" || { echo "$f: no $s section" >&2; return 1; }
		done
		# a NAME line of its own, not help2man's placeholder
		run grep -A1 '^\.SH NAME' "$f"
		refute_output --partial "manual page for"
		assert_output --regexp "$(basename "$p") \\\\- [A-Za-z]"
	done
	for s in NAME SYNOPSIS DESCRIPTION EXAMPLES FILES ENVIRONMENT "SEE ALSO"; do
		grep -q "^\.SH \"\{0,1\}$s\"\{0,1\}\$" "$PROTOCOL_PAGE" || { echo "protocol page: no $s" >&2; return 1; }
	done
}

# section NAME FILE: the text of a page's section, plain
section() {
	plain "$2" | awk -v s="$1" '/^[A-Z]/ { on = ($0 == s); next } on'
}

@test "each page's EXIT STATUS gives every status its --help gives, and says what each means" {
	need_pages
	local p f text statuses n
	for p in $(built_programs); do
		f=$(page "$(basename "$p")" 1)
		text=$(section "EXIT STATUS" "$f")
		# the statuses of --help's "Exit status:" paragraph: 0, 1, 2, 128+N
		statuses=$("$p" --help | sed -n '/^Exit status:/,/^$/p' | grep -oE '\<[0-9]+(\+N)?\>' |
			grep -vE '^(1[3-9][0-9])$' | sort -u)
		[ -n "$statuses" ] || { echo "$p: --help gives no exit status" >&2; return 1; }
		for n in $statuses; do
			# a tagged paragraph per status, with words after it
			grep -qE "^ {7}$(sed 's/+/\\+/' <<<"$n") +[A-Z]" <<<"$text" ||
				{ echo "$f: EXIT STATUS does not explain $n" >&2; return 1; }
		done
	done
}

# the environment variables the C sources under the folders given read
variables_read() {
	local d
	for d in "$@"; do
		[ -d "$top_srcdir/$d" ] || continue
		grep -ohE '\<(secure_)?getenv\("[A-Z_][A-Z0-9_]*"\)' "$top_srcdir/$d"/*.c "$top_srcdir/$d"/*.cu 2>/dev/null |
			sed 's/.*("\(.*\)")/\1/'
	done | sort -u
}

@test "each page's ENVIRONMENT names every variable its program's code reads" {
	need_pages
	local p f v vars text missing=
	for p in $(built_programs); do
		f=$(page "$(basename "$p")" 1)
		text=$(section ENVIRONMENT "$f")
		[ -n "$text" ] || { echo "$f: an empty ENVIRONMENT" >&2; return 1; }
		case $(basename "$p") in
		sudoku-race) vars=$(variables_read racer protocol lib) ;;
		# a script: the variables it reads with a default, ${NAME:-...}
		sudoku-race-*) vars=$(grep -oE '\$\{[A-Z][A-Z0-9_]*:-' "$p" | tr -d '${:-' | sort -u) ;;
		sudoku-gpu) vars=$( (variables_read workers protocol lib cuda; echo CUDA_VISIBLE_DEVICES) | sort -u) ;;
		sudoku-*) vars=$(variables_read workers protocol lib) ;;
		esac
		for v in $vars; do
			grep -qw -- "$v" <<<"$text" || missing="$missing $(basename "$p"):$v"
		done
		# a worker that reads none says so
		if [[ $(basename "$p") != sudoku-race* && -z $(variables_read workers protocol lib) ]]; then
			grep -q "reads no environment variable of its own" <<<"$text" ||
				missing="$missing $(basename "$p"):(says-none)"
		fi
	done
	assert_equal "$missing" ""
	# the racer's, whatever the code: the cache's and the workers' search
	text=$(section ENVIRONMENT "$(page sudoku-race 1)")
	for v in SUDOKU_RACE_CACHE XDG_CACHE_HOME HOME PATH TERM; do
		grep -qw -- "$v" <<<"$text" || { echo "sudoku-race(1): no $v" >&2; return 1; }
	done
}

@test "each page renders at 80 columns without warnings" {
	need_pages
	local f err
	for f in $(for p in $(built_programs); do page "$(basename "$p")" 1; done) "$PROTOCOL_PAGE"; do
		# help2man pages: all warnings but line breaking, which the
		# programs' --help lines decide; the hand-written page: all
		if [ "$f" = "$PROTOCOL_PAGE" ]; then
			err=$(MANWIDTH=80 groff -k -man -t -Tutf8 -rLL=80n -ww "$f" 2>&1 >/dev/null)
		else
			err=$(MANWIDTH=80 groff -k -man -t -Tutf8 -rLL=80n -ww -Wbreak "$f" 2>&1 >/dev/null)
		fi
		[ -z "$err" ] || { echo "$f: $err" >&2; return 1; }
		[ "$(plain "$f" | wc -l)" -gt 20 ]
	done
}

@test "man -l shows a page" {
	need_pages
	command -v man >/dev/null || skip "man not found"
	run env MANWIDTH=80 MANPAGER=cat PAGER=cat man -l "$(page sudoku-race 1)"
	assert_success
	assert_output --partial "EXAMPLES"
	assert_output --partial "sudoku-protocol(5)"
}

@test "sudoku-protocol(5) has every section of PROTOCOL.md, in order" {
	command -v groff >/dev/null || skip "groff not found"
	local md man
	md=$(sed -n 's/^## \([0-9]*\)\. \(.*\)$/\1. \2/p' "$top_srcdir/protocol/PROTOCOL.md" |
		tr -d '`' | tr '[:lower:]' '[:upper:]' | sed 's/→/TO/g; s/ *$//')
	man=$(sed -n 's/^\.SH "\([0-9]*\. .*\)"$/\1/p' "$PROTOCOL_PAGE" | sed 's/  */ /g; s/ *$//')
	assert_equal "$man" "$md"
	# and the protocol version
	grep -q "^# .*version 1$" "$top_srcdir/protocol/PROTOCOL.md"
	plain "$PROTOCOL_PAGE" | grep -q "version 1"
}

@test "sudoku-protocol(5) names every message, field and key of PROTOCOL.md" {
	command -v groff >/dev/null || skip "groff not found"
	local text word missing=
	text=$(plain "$PROTOCOL_PAGE")
	# the first word of every `code` span that is a protocol word
	for word in $(grep -o '`[a-z][a-z_]*[ =`]' "$top_srcdir/protocol/PROTOCOL.md" |
		sed 's/^`//; s/[ =`]$//' | sort -u); do
		grep -qw -- "$word" <<<"$text" || missing="$missing $word"
	done
	assert_equal "$missing" ""
	# and the limits
	for word in 65,536 63 40 4,096; do
		grep -q -- "$word" <<<"$text" || { echo "no $word" >&2; return 1; }
	done
}

@test "sudoku-protocol(5) has every word of PROTOCOL.md (of five letters or more)" {
	command -v groff >/dev/null || skip "groff not found"
	local text word missing=
	# a paragraph added to PROTOCOL.md brings words the page lacks
	text=$(plain "$PROTOCOL_PAGE" | tr '[:upper:]' '[:lower:]')
	for word in $(tr '[:upper:]' '[:lower:]' <"$top_srcdir/protocol/PROTOCOL.md" | grep -oE '[a-z]{5,}' | sort -u); do
		grep -qw -- "$word" <<<"$text" || missing="$missing $word"
	done
	assert_equal "$missing" ""
}

@test "every program's --version gives the licence and the bug address" {
	local bugs p
	bugs=$(sed -n 's/^#define PACKAGE_BUGREPORT "\(.*\)"$/\1/p' "$top_builddir/config.h")
	[ -n "$bugs" ]
	for p in $(built_programs); do
		run "$p" --version
		assert_success
		assert_line --index 0 --regexp "^$(basename "$p") \(sudoku-race\) [0-9]"
		assert_output --partial "License: MIT"
		assert_output --partial "Report bugs to: $bugs"
	done
	[ -f "$top_srcdir/LICENSE" ]
	grep -q "^MIT License" "$top_srcdir/LICENSE"
}
