#!/usr/bin/env bats
# Shell completions (contrib/completion/): bash's functions driven as bash
# drives them (COMP_WORDS split at '=' and ':' as COMP_WORDBREAKS says,
# COMP_CWORD, COMP_LINE), their replies in COMPREPLY; zsh's and fish's files
# are checked for syntax (zsh -n, fish -n) and, where those shells are here,
# fish's completions through `complete -C`.

bats_require_minimum_version 1.5.0
load helpers

BASH_COMP="$top_srcdir/contrib/completion/sudoku-race.bash"
ZSH_COMP="$top_srcdir/contrib/completion/_sudoku-race"
FISH_COMP="$top_srcdir/contrib/completion/sudoku-race.fish"

setup() {
	leak_setup
	# the scripts under their installed names, beside the programs' build
	export PATH="$top_builddir/contrib:$PATH"
	cd "$BATS_TEST_TMPDIR"
}

# bash_complete LINE: the replies bash's completion gives at the end of LINE,
# one a line, sorted; the line is split as bash splits it (blanks, and '='
# and ':' as words of their own)
bash_complete() {
	bash -c '
		source "$1"
		line=$2 COMP_WORDS=() w=""
		for ((i = 0; i < ${#line}; i++)); do
			c=${line:i:1}
			if [[ $c == " " ]]; then
				[[ -n $w ]] && COMP_WORDS+=("$w")
				w=
			elif [[ $c == [=:] ]]; then
				[[ -n $w && $w != [=:]* ]] && { COMP_WORDS+=("$w"); w=; }
				w+=$c
			else
				[[ $w == [=:]* ]] && { COMP_WORDS+=("$w"); w=; }
				w+=$c
			fi
		done
		if [[ -n $w ]]; then COMP_WORDS+=("$w"); else COMP_WORDS+=(""); fi
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
		_sudoku_race_complete
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$BASH_COMP" "$1"
}

# words WORD...: the words, one a line, sorted, as bash_complete prints them
words() {
	printf '%s\n' "$@" | sort
}

@test "bash: sudoku-gpu --method offers the methods of its --help, not file names" {
	[ -x "$top_builddir/cuda/sudoku-gpu" ] || skip "sudoku-gpu is not built (no CUDA)"
	touch spbf-file other-file
	run bash_complete "sudoku-gpu --method "
	assert_output "$(words auto cp cpw opbf pdlx spbf)"
	run bash_complete "sudoku-gpu --method=cp"
	assert_output "$(words cp cpw)"
}

@test "bash: an option's words from --help, for every worker that has them" {
	run bash_complete "sudoku-tabu --rank "
	assert_output "$(words ac3 move)"
	run bash_complete "sudoku-bf --check="
	assert_output "$(words mask scan)"
	run bash_complete "sudoku-eda --zones="
	assert_output "$(words none 3 9 27)"
	run bash_complete "sudoku-acs --greedy=t"
	assert_output "textbook"
	# a number: nothing, and no file names either
	touch 12file
	run bash_complete "sudoku-cp --time-limit "
	assert_output ""
	run bash_complete "sudoku-race --timeout=1"
	assert_output ""
}

@test "bash: --schedule and --presolver take their words; --cache a folder or redis://" {
	mkdir cachedir
	touch cachefile
	run bash_complete "sudoku-race --schedule "
	assert_output "$(words staged all)"
	run bash_complete "sudoku-race --schedule=st"
	assert_output "staged"
	run bash_complete "sudoku-race --presolver s"
	assert_output "sat"
	run bash_complete "sudoku-race --cache "
	assert_output "$(words cachedir redis://)"
}

@test "bash: --workers: names after commas, then each worker's own options and their words" {
	run bash_complete "sudoku-race --workers "
	assert_output "$(words cp sat dlx bf acs eda hill tabu gpu)"
	run bash_complete "sudoku-race -w cp,a"
	assert_output "cp,acs"
	# bash replaces only what follows the last ':' or '=': the replies are that
	run bash_complete "sudoku-race --workers=cp,acs:gr"
	assert_output "greedy="
	run bash_complete "sudoku-race -w acs:"
	assert_line "ants="
	assert_line "restart="
	assert_line "bve"
	assert_line "no-bve"
	assert_line "seed="
	refute_line "json"
	refute_line "protocol="
	refute_line "protocol"
	run bash_complete "sudoku-race -w cp,acs:greedy="
	assert_output "$(words paper textbook)"
	run bash_complete "sudoku-race -w cp:fast:restart-nodes=5,eda:z"
	assert_output "zones="
	run bash_complete "sudoku-race -w eda:zones=n"
	assert_output "none"
	# the worker's --help, found beside the racer as the racer finds it
	run bash_complete "$top_builddir/racer/sudoku-race -w tabu:moves="
	assert_output "$(words empty any)"
	# a worker that does not exist: no options
	run bash_complete "sudoku-race -w nosuch:"
	assert_output ""
}

@test "bash: options from --help, --[no-]X both ways; the cache command; files elsewhere" {
	run bash_complete "sudoku-cp --no-f"
	assert_output "--no-fast"
	run bash_complete "sudoku-cp --fa"
	assert_output "--fast"
	run bash_complete "sudoku-race --pro"
	assert_output "$(words --progress --progress-ms)"
	run bash_complete "sudoku-race cache "
	assert_output "$(words stats clear export import)"
	run bash_complete "sudoku-race cache import --t"
	assert_output "--trust"
	touch puzzles.txt
	run bash_complete "sudoku-race puz"
	assert_output "puzzles.txt"
	run bash_complete "sudoku-race --count puz"
	assert_output "puzzles.txt"
}

@test "bash: the scripts: their options, and their values" {
	touch hosts
	# the options of --help, whatever their letters
	local url hostfile block
	url=$(sudoku-race-many --help | sed -n 's/^ *\(-[A-Za-z]\)\(, --[a-z-]*\)\{0,1\} URL .*/\1/p')
	hostfile=$(sudoku-race-many --help | sed -n 's/^ *\(-[A-Za-z]\)\(, --[a-z-]*\)\{0,1\} HOSTFILE .*/\1/p')
	block=$(sudoku-race-many --help | sed -n 's/^ *\(-[A-Za-z]\)\(, --[a-z-]*\)\{0,1\} LINES .*/\1/p')
	[ -n "$url" ] && [ -n "$hostfile" ] && [ -n "$block" ]
	run bash_complete "sudoku-race-many -"
	assert_line -- "$url"
	assert_line -- "$hostfile"
	assert_line -- --help
	assert_line -- --version
	run bash_complete "sudoku-race-many $url "
	assert_output "redis://"
	run bash_complete "sudoku-race-many $hostfile ho"
	assert_output "hosts"
	run bash_complete "sudoku-race-many $block "
	assert_output ""
	run bash_complete "sudoku-race-cactus --w"
	assert_output "--workers"
	run bash_complete "sudoku-race-cactus --workers cp,hill:w"
	assert_output "$(words w1= w2=)"
	run bash_complete "sudoku-race-cactus --output=ho"
	assert_output "hosts"
}

@test "zsh: the completion file parses (zsh -n)" {
	command -v zsh >/dev/null || skip "zsh not found (Debian: zsh)"
	run zsh -n "$ZSH_COMP"
	assert_success
	assert_output ""
	head -n 1 "$ZSH_COMP" | grep -q '^#compdef sudoku-race '
}

@test "zsh: its --help reader gives every option and an option's words" {
	command -v zsh >/dev/null || skip "zsh not found (Debian: zsh)"
	run zsh -f -c '
		_call_program() { shift; eval "$@"; }
		source <(sed "\$d" "$1")
		_sudoku_race_options sudoku-tabu | cut -d$'"'"'\x1f'"'"' -f1,2 | grep -- --rank
		_sudoku_race_words "=ac3|move"
		_sudoku_race_options sudoku-acs acs | cut -d$'"'"'\x1f'"'"' -f1 | tr "\n" " "' _ "$ZSH_COMP"
	assert_success
	assert_line --index 0 "--rank"$'\x1f'"=ac3|move"
	assert_line --index 1 "ac3"
	assert_line --index 2 "move"
	assert_line --index 3 --partial "--ants --rho "
	assert_line --index 3 --partial " --bve --no-bve "
}

@test "fish: the completion file parses (fish -n), and completes" {
	command -v fish >/dev/null || skip "fish not found (Debian: fish)"
	run fish -n "$FISH_COMP"
	assert_success
	assert_output ""
	run fish -N -c 'source $argv[1]
		for c in sudoku-race sudoku-tabu; __sudoku_race_register $c; end
		complete -C"sudoku-tabu --rank "
		complete -C"sudoku-race --schedule "
		complete -C"sudoku-race -w acs:gre"
		complete -C"sudoku-race -w hill:no-post"' "$FISH_COMP"
	assert_success
	assert_line --regexp $'^ac3\t'
	assert_line --regexp $'^move\t'
	assert_line --regexp $'^staged\t'
	assert_line --regexp $'^all\t'
	assert_line --regexp $'^acs:greedy=\t'
	assert_line --regexp $'^hill:no-post-swap\t'
}

# makevar NAME: the value of make's variable NAME in the build tree
makevar() {
	printf 'print-makevar:\n\t@echo $(%s)\n' "$1" |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
			-f Makefile -f - print-makevar
}

@test "every program make installs is completed by each shell, and linked under its name" {
	[ -f "$top_builddir/Makefile" ] || skip "no Makefile in $top_builddir"
	local p programs missing=
	programs=$(for p in $(makevar bin_PROGRAMS) $(makevar bin_SCRIPTS); do basename "$p"; done)
	[ -n "$programs" ]
	local bash_names zsh_names fish_names linked
	bash_names=$(sed -n '/^complete -F _sudoku_race_complete/,/[^\\]$/p' "$BASH_COMP" | tr -d '\\')
	zsh_names=$(head -n 1 "$ZSH_COMP")
	fish_names=$(sed -n '/^if contains -- $__sudoku_race_cmd/,/[^\\]$/p' "$FISH_COMP" | tr -d '\\')
	linked=$(makevar completion_names)
	for p in $programs; do
		grep -qw -- "$p" <<<"$bash_names" || missing="$missing bash:$p"
		grep -qw -- "$p" <<<"$zsh_names" || missing="$missing zsh:$p"
		grep -qw -- "$p" <<<"$fish_names" || missing="$missing fish:$p"
		grep -qw -- "$p" <<<"$linked" || missing="$missing completion_names:$p"
	done
	assert_equal "$missing" ""
}
