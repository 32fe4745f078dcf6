# shellcheck shell=bash
# corpora.sh: where the benchmark scripts find their puzzles. Sourced, not run.
#
# The corpora live in the repository's puzzles/: the 9x9 sets as
# puzzles/9x9/NAME.xz, the ACO paper's instances as puzzles/acs.tar.xz
# (puzzles/README.md says where each comes from). A folder given on a
# script's command line may hold them so, or unpacked (NAME, acs/), as
# ../shared/puzzles does. What must be unpacked goes to $CORPUS_TMP, a
# folder the calling script makes and removes.

# the default corpora folder: the repository's puzzles/
# shellcheck disable=SC2034 # used by the scripts that source this
CORPUS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../puzzles" && pwd)

# corpus_file DIR NAME: the path of the plain file NAME of folder DIR,
# unpacked from DIR/NAME.xz into $CORPUS_TMP when only that is there.
corpus_file() {
	local dir=$1 name=$2
	if [ -f "$dir/$name" ]; then
		echo "$dir/$name"
	elif [ -f "$dir/$name.xz" ]; then
		[ -f "$CORPUS_TMP/$name" ] || xz -dc "$dir/$name.xz" >"$CORPUS_TMP/$name" || return 1
		echo "$CORPUS_TMP/$name"
	else
		echo "corpus: no $dir/$name (nor $name.xz)" >&2
		return 1
	fi
}

# corpus_9x9 DIR NAME: the 9x9 set NAME (e.g. puzzles2_17_clue) of a
# corpora folder DIR (holding 9x9/) or of a folder of 9x9 sets itself.
corpus_9x9() {
	local dir=$1 name=$2
	if [ -e "$dir/9x9/$name" ] || [ -e "$dir/9x9/$name.xz" ]; then dir=$dir/9x9; fi
	corpus_file "$dir" "$name"
}

# corpus_acs DIR: a folder holding the ACO instances' general/ and
# logic-solvable/, from DIR itself, DIR/acs, or DIR/acs.tar.xz (unpacked
# into $CORPUS_TMP, all 6,316 files, about 25 MB).
corpus_acs() {
	local dir=$1
	if [ -d "$dir/general" ]; then
		echo "$dir"
	elif [ -d "$dir/acs/general" ]; then
		echo "$dir/acs"
	elif [ -f "$dir/acs.tar.xz" ]; then
		[ -d "$CORPUS_TMP/acs/general" ] || tar -C "$CORPUS_TMP" -xJf "$dir/acs.tar.xz" || return 1
		echo "$CORPUS_TMP/acs"
	else
		echo "corpus: no ACO instances in $dir (general/, acs/ or acs.tar.xz)" >&2
		return 1
	fi
}
