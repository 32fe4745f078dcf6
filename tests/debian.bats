#!/usr/bin/env bats
# The Debian package (debian/): its version is configure's, its files go into
# the tarball, its smoke test runs every program make installs, and, when
# asked (SUDOKU_RACE_CHECK_DEBIAN=1; CI runs contrib/check-debian itself), it
# builds, installs and solves the example puzzles.

bats_require_minimum_version 1.5.0
load helpers

# makevar NAME: the value of make's variable NAME in the build tree
makevar() {
	printf 'print-makevar:\n\t@echo $(%s)\n' "$1" |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
			-f Makefile -f - print-makevar
}

need_makefile() {
	[ -f "$top_builddir/Makefile" ] || skip "no Makefile in $top_builddir"
}

@test "debian/changelog's version is configure's, with a Debian revision" {
	local version
	version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
	[ -n "$version" ]
	run sed -n '1s/^sudoku-race (\(.*\)) .*/\1/p' "$top_srcdir/debian/changelog"
	assert_output --regexp "^$(sed 's/\./\\./g' <<<"$version")-[0-9]+$"
	if command -v dpkg-parsechangelog >/dev/null; then
		run dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version
		assert_output --regexp "^$(sed 's/\./\\./g' <<<"$version")-[0-9]+$"
	fi
}

@test "every file of debian/, and contrib/check-debian, goes into the tarball" {
	need_makefile
	local f dist missing=
	dist=" $(makevar EXTRA_DIST) "
	for f in $(cd "$top_srcdir" && find debian -type f \
		! -path 'debian/.debhelper/*' ! -path 'debian/sudoku-race/*' ! -path 'debian/tmp/*' \
		! -name files ! -name '*.substvars' ! -name debhelper-build-stamp ! -name '*.debhelper.log' \
		! -name 'autoreconf.*' | sort) contrib/check-debian; do
		[[ $dist == *" $f "* ]] || missing="$missing $f"
	done
	assert_equal "$missing" ""
	[ -x "$top_srcdir/debian/rules" ]
	[ -x "$top_srcdir/debian/tests/smoke" ]
	[ -x "$top_srcdir/contrib/check-debian" ]
}

@test "the package's smoke test runs every program make installs (sudoku-gpu: where built)" {
	need_makefile
	local p missing=
	for p in $(makevar bin_PROGRAMS) $(makevar bin_SCRIPTS); do
		p=$(basename "$p")
		[ "$p" = sudoku-gpu ] && continue
		grep -qE "(^|[[:space:]])$p([[:space:]]|;|$)" "$top_srcdir/debian/tests/smoke" || missing="$missing $p"
	done
	assert_equal "$missing" ""
}

@test "the smoke test passes on the programs of this build" {
	[ -x "$top_builddir/contrib/sudoku-race-many" ] || skip "the scripts are not built here"
	[ -x "$top_builddir/workers/sudoku-sat" ] || skip "sudoku-sat is not built (configure --with-cadical)"
	# the pages as a package has them, compressed, under a root of its own
	local root=$BATS_TEST_TMPDIR/root p
	mkdir -p "$root/usr/share/man/man1"
	for p in sudoku-race sudoku-cp sudoku-race-many; do
		[ -f "$top_builddir/man/$p.1" ] || skip "no man pages in this build"
		gzip -c "$top_builddir/man/$p.1" >"$root/usr/share/man/man1/$p.1.gz"
	done
	cd "$top_srcdir"
	run env PATH="$top_builddir/contrib:$PATH" SMOKE_ROOT="$root" AUTOPKGTEST_TMP="$BATS_TEST_TMPDIR" \
		sh debian/tests/smoke
	assert_success
	assert_line --regexp '^smoke: [0-9]+ puzzles solved'
}

@test "contrib/check-debian: --help, and a bad argument" {
	run "$top_srcdir/contrib/check-debian" --help
	assert_success
	assert_line --index 0 --regexp '^Usage: check-debian '
	run --separate-stderr "$top_srcdir/contrib/check-debian" --frobnicate
	assert_failure 2
	[[ $stderr == *"--frobnicate"* ]]
}

@test "the package builds, installs and solves puzzles/examples.txt (contrib/check-debian)" {
	[ "${SUDOKU_RACE_CHECK_DEBIAN:-}" = 1 ] ||
		skip "a package build takes 1 to 3 minutes (and, as root, installs it): CI runs contrib/check-debian; SUDOKU_RACE_CHECK_DEBIAN=1 runs it here"
	command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage not found (Debian: dpkg-dev)"
	command -v dh >/dev/null || skip "debhelper not found (Debian: debhelper)"
	run env DEB_BUILD_OPTIONS=nocheck "$top_srcdir/contrib/check-debian"
	assert_success
	assert_line --regexp '^check-debian: the package builds, (installs, )?and solves puzzles/examples.txt'
}
