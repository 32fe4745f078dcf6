#!/usr/bin/env bats
# The manuals: a page per program (made by help2man, or shipped in the
# tarball) and sudoku-protocol(5); each has the sections a user looks for
# and renders without warnings; the protocol page says what PROTOCOL.md
# says; every program's --version gives the licence and the bug address.

load helpers

PROTOCOL_PAGE="$top_srcdir/man/sudoku-protocol.5"

# the programs this build has, by path
built_programs() {
	local p
	for p in "$top_builddir"/racer/sudoku-race "$top_builddir"/workers/sudoku-* "$top_builddir"/tools/sudoku-* \
		"$top_builddir"/cuda/sudoku-gpu; do
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

@test "each page has NAME, SYNOPSIS, EXAMPLES, FILES, ENVIRONMENT, REPORTING BUGS and SEE ALSO" {
	need_pages
	local p f s
	for p in $(built_programs); do
		f=$(page "$(basename "$p")" 1)
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES FILES ENVIRONMENT "REPORTING BUGS" "SEE ALSO"; do
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
