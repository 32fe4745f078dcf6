#!/usr/bin/env bats
# The contrib scripts that make install installs: contrib/many-machines.sh
# as sudoku-race-many and contrib/bench/cactus as sudoku-race-cactus. Each
# answers GNU --help and --version (the version configure gives), refuses a
# bad command line with status 2, and works under its installed name, from
# the folder it is installed in; make install puts them, their pages and the
# completions where they belong.

bats_require_minimum_version 1.5.0
load helpers

MANY_SRC="$top_srcdir/contrib/many-machines.sh"
CACTUS_SRC="$top_srcdir/contrib/bench/cactus"
MANY="$top_builddir/contrib/sudoku-race-many"
CACTUS="$top_builddir/contrib/sudoku-race-cactus"

version() {
	sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h"
}

bugs() {
	sed -n 's/^#define PACKAGE_BUGREPORT "\(.*\)"$/\1/p' "$top_builddir/config.h"
}

@test "--version: the program's name, the package's version, the licence, the bug address" {
	local p name
	[ -n "$(version)" ]
	for p in "$MANY" "$CACTUS" "$MANY_SRC" "$CACTUS_SRC"; do
		name=$(basename "$p")
		for o in --version -V; do
			run --separate-stderr "$p" "$o"
			assert_success
			assert_line --index 0 "$name (sudoku-race) $(version)"
			assert_line --index 1 --partial "License: MIT"
			assert_line --index 2 "Report bugs to: $(bugs)"
			assert_equal "$stderr" ""
		done
	done
}

@test "--help: GNU usage on standard output, every option, the exit status; status 0" {
	local p name
	for p in "$MANY" "$CACTUS" "$MANY_SRC" "$CACTUS_SRC"; do
		name=$(basename "$p")
		for o in --help -h; do
			run --separate-stderr "$p" "$o"
			assert_success
			assert_equal "$stderr" ""
			assert_line --index 0 --regexp "^Usage: $name \[OPTION\]\.\.\. "
			assert_line --regexp '^  -h, --help +show this help and exit$'
			assert_line --regexp '^  -V, --version +show the version and exit$'
			assert_line --regexp '^Exit status: '
		done
	done
	# an option a line, each with its description (help2man's layout)
	run "$MANY" --help
	[ "$(grep -cE '^  -[A-Za-z](, --[a-z-]+)?( [A-Z]+)? +[a-z(]' <<<"$output")" -ge 8 ]
	run "$CACTUS" --help
	for o in --workers --limit --first --build --output --csv --race-json --from-csv --title; do
		assert_line --regexp "^  (-[a-zA-Z], |    )$o( [A-Z.]+)? +[a-z]"
	done
	# --help wins over what follows it, before anything runs
	run "$MANY" --help -S /nonexistent
	assert_success
}

@test "a bad command line: status 2, the program's name, and where to look" {
	local p
	for p in "$MANY" "$CACTUS"; do
		for args in "--frobnicate" "-Z"; do
			run --separate-stderr "$p" $args
			assert_failure 2
			[[ $stderr == "$(basename "$p"): "*"${args}"* ]]
			[[ $stderr == *"Try '$(basename "$p") --help' for more information."* ]]
		done
	done
	run --separate-stderr "$MANY"
	assert_failure 2
	[[ $stderr == *"no PUZZLES file"* ]]
	run --separate-stderr "$MANY" -n
	assert_failure 2
	[[ $stderr == *"-n needs a value"* ]]
	run --separate-stderr "$CACTUS" --limit
	assert_failure 2
	[[ $stderr == *"--limit needs a value"* ]]
}

@test "sudoku-race-many refuses what it cannot run: no redis:// cache, no file" {
	printf '1...............\n' >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr env -u SUDOKU_RACE_CACHE "$MANY" "$BATS_TEST_TMPDIR/in"
	assert_failure 2
	[[ $stderr == "sudoku-race-many: no shared cache"* ]]
	run --separate-stderr env SUDOKU_RACE_CACHE=/tmp/dir "$MANY" "$BATS_TEST_TMPDIR/in"
	assert_failure 2
	[[ $stderr == *"'/tmp/dir' is not a redis:// URL"* ]]
	run --separate-stderr env SUDOKU_RACE_CACHE=redis://127.0.0.1 "$MANY" "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	[[ $stderr == *"none: cannot read it"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/none.run" ]
}

@test "sudoku-race-cactus, installed: the programs beside it, --from-csv, --build, FILEs needed" {
	command -v gnuplot >/dev/null || skip "gnuplot not found"
	local bin=$BATS_TEST_TMPDIR/bin p
	mkdir "$bin"
	cp "$CACTUS" "$bin/"
	for p in "$top_builddir"/racer/sudoku-race "$top_builddir"/workers/sudoku-cp "$top_builddir"/workers/sudoku-dlx; do
		ln -s "$p" "$bin/"
	done
	head -n 3 "$DATA/easy9.txt" >"$BATS_TEST_TMPDIR/p.txt"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "$bin/sudoku-race-cactus" --workers cp,dlx --limit=2 --csv out.csv p.txt
	assert_success
	assert_line --regexp '^cp +3/3 '
	assert_line --regexp '^race +3/3 '
	[ -s cactus.png ]
	[ "$(grep -c '^race,[0-9]*,solved,' out.csv)" -eq 3 ]
	# without a FILE the installed copy has no default set
	run --separate-stderr "$bin/sudoku-race-cactus" --workers cp
	assert_failure 2
	[[ $stderr == *"no FILE"* ]]
	# --build names another folder of programs
	run --separate-stderr "$bin/sudoku-race-cactus" --build "$BATS_TEST_TMPDIR/nothing" p.txt
	assert_failure 2
	[[ $stderr == *"no sudoku-race in $BATS_TEST_TMPDIR/nothing"* ]]
	run --separate-stderr "$bin/sudoku-race-cactus" --from-csv out.csv --limit 2 -o again.png
	assert_success
	[ -s again.png ]
}

# makevar NAME: the value of make's variable NAME in the build tree
makevar() {
	printf 'print-makevar:\n\t@echo $(%s)\n' "$1" |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
			-f Makefile -f - print-makevar
}

@test "make install: the scripts, their pages, the completions, where configure says" {
	[ -f "$top_builddir/Makefile" ] || skip "no Makefile in $top_builddir"
	local root=$BATS_TEST_TMPDIR/root bin man bashdir zshdir fishdir p
	bin=$root$(makevar bindir)
	man=$root$(makevar man1dir)
	bashdir=$(makevar bashcompdir) zshdir=$(makevar zshcompdir) fishdir=$(makevar fishcompdir)
	# a make of its own, not one of the make check that runs this test
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top_builddir" install DESTDIR="$root"
	assert_success
	[ -x "$bin/sudoku-race-many" ]
	[ -x "$bin/sudoku-race-cactus" ]
	run "$bin/sudoku-race-many" --version
	assert_line --index 0 "sudoku-race-many (sudoku-race) $(version)"
	if [ -f "$man/sudoku-race.1" ]; then
		[ -f "$man/sudoku-race-many.1" ]
		[ -f "$man/sudoku-race-cactus.1" ]
	fi
	# the completions: in configure's folders, under every program's name
	for p in sudoku-race sudoku-cp sudoku-race-many sudoku-race-cactus; do
		[ -z "$bashdir" ] || [ -e "$root$bashdir/$p" ]
		[ -z "$fishdir" ] || [ -e "$root$fishdir/$p.fish" ]
	done
	[ -z "$zshdir" ] || [ -f "$root$zshdir/_sudoku-race" ]
	# by default, the usual folders
	if grep -q "with-bash-completion-dir\|with-zsh-completion-dir\|with-fish-completion-dir" \
		<(sed -n 's/^  \$ .*configure //p' "$top_builddir/config.log"); then
		:
	else
		assert_equal "$bashdir" "$(makevar datadir)/bash-completion/completions"
		assert_equal "$zshdir" "$(makevar datadir)/zsh/vendor-completions"
		assert_equal "$fishdir" "$(makevar datadir)/fish/vendor_completions.d"
	fi
	# and make uninstall takes them away
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top_builddir" uninstall DESTDIR="$root"
	assert_success
	run find "$root" -type f -o -type l
	assert_output ""
}
