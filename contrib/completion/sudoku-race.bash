# bash completion for sudoku-race, its workers (sudoku-cp, sudoku-dlx, ...)
# and its scripts (sudoku-race-many, sudoku-race-cactus).
#
# Everything comes from the programs' own --help, read when TAB is pressed,
# so that it never goes stale: the options; the values of an option that
# takes one of a few words (--method=spbf|opbf|...: the words); and, in
# --workers NAME:KEY=VALUE, the worker's own options (the "NAME options:"
# part of sudoku-NAME --help) and their values. Only --schedule's and
# --presolver's values, which the racer's --help names in prose, are here.
# make install puts this file in $(bashcompdir) under every program's name.

# shellcheck shell=bash disable=SC2207 # COMPREPLY=($(compgen ...)): the usual idiom

# _sudoku_race_options PROGRAM: one line per option of PROGRAM's --help,
# "NAME<TAB>ARG": ARG is empty for an option without a value, "=WORD" or
# " WORD" for a value, "[=WORD]" for an optional one. --[no-]X gives --X
# and --no-X. With SECTION, only the lines of --help's "SECTION options:".
_sudoku_race_options()
{
	local prog=$1 section=${2-} line rest name arg lastarg in=1 names args i
	[[ -n $section ]] && in=0
	local re='^(--\[no-\][a-z0-9-]+|--[a-z0-9][a-z0-9-]*|-[a-zA-Z0-9])(\[=[^] ]+\]|=[^ ,]+| [A-Z][A-Z.]*)?(, )?'
	while IFS= read -r line; do
		if [[ -n $section ]]; then
			if [[ $line == "$section options:" ]]; then
				in=1
				continue
			fi
			[[ $in == 1 && -z $line ]] && in=0
		fi
		[[ $in == 1 ]] || continue
		# an option's line is indented 1 to 10 blanks, its text more
		[[ $line =~ ^\ {1,10}- ]] || continue
		rest=${line#"${line%%[! ]*}"}
		names=() args=() lastarg=
		while [[ $rest =~ $re ]]; do
			name=${BASH_REMATCH[1]} arg=${BASH_REMATCH[2]}
			rest=${rest:${#BASH_REMATCH[0]}}
			if [[ $name == --\[no-\]* ]]; then
				names+=("--${name#--\[no-\]}" "--no-${name#--\[no-\]}")
				args+=("$arg" "$arg")
			else
				names+=("$name")
				args+=("$arg")
			fi
			[[ -n $arg ]] && lastarg=$arg
			[[ -n ${BASH_REMATCH[3]} ]] || break
		done
		# "-w, --workers=LIST": -w takes the LIST too
		for i in "${!names[@]}"; do
			printf '%s\t%s\n' "${names[i]}" "${args[i]:-$lastarg}"
		done
	done < <("$prog" --help 2>/dev/null)
}

# _sudoku_race_program NAME FROM: the path of the worker NAME (sudoku-NAME,
# or a program, or a path) as the racer FROM finds it: beside FROM, in
# ../workers and ../cuda from it (a build tree), then on the PATH.
_sudoku_race_program()
{
	local name=$1 from=$2 dir d
	if [[ $name == */* ]]; then
		echo "$name"
		return
	fi
	[[ $from == */* ]] || from=$(type -P "$from")
	if [[ -n $from ]]; then
		dir=${from%/*}
		for d in "$dir" "$dir/../workers" "$dir/../cuda"; do
			[[ -x $d/sudoku-$name && -f $d/sudoku-$name ]] && { echo "$d/sudoku-$name"; return; }
		done
	fi
	type -P "sudoku-$name" || type -P "$name"
}

# _sudoku_race_values ARG: the words of an option's ARG (=a|b|c: a b c);
# nothing when ARG names a kind of value (=N, =SECS, =DIR|URL)
_sudoku_race_values()
{
	local arg=${1#[ \[]} w
	arg=${arg#=}
	arg=${arg%]}
	[[ $arg == *[a-z]* ]] || return 0
	local IFS='|'
	for w in $arg; do
		[[ $w =~ ^[A-Z][A-Z0-9_.]*$ ]] || echo "$w"
	done
}

# _sudoku_race_arg PROGRAM OPTION: OPTION's ARG in PROGRAM's --help; status
# 1 when OPTION takes no value (or only as OPTION=VALUE)
_sudoku_race_arg()
{
	local name arg table
	table=$(_sudoku_race_options "$1")
	while IFS=$'\t' read -r name arg; do
		if [[ $name == "$2" ]]; then
			[[ -n $arg && $arg != \[* ]] || return 1
			echo "$arg"
			return 0
		fi
	done <<<"$table"
	return 1
}

# _sudoku_race_entries PROGRAM VALUE: the completions of VALUE, a list of
# workers, NAME[:KEY[=VALUE]]... separated by commas (--workers)
_sudoku_race_entries()
{
	local prog=$1 val=$2 head='' entry w key arg name
	if [[ $val == *,* ]]; then
		head=${val%,*},
		entry=${val##*,}
	else
		entry=$val
	fi
	if [[ $entry != *:* ]]; then
		for w in cp sat dlx bf acs eda hill tabu gpu; do
			echo "$head$w"
		done
		return
	fi
	# a worker's option: the options of its own part of --help, and --seed
	local worker before=${entry%:*} last=${entry##*:}
	worker=$(_sudoku_race_program "${entry%%:*}" "$prog") || return
	if [[ $last == *=* ]]; then
		key=${last%%=*}
		while IFS=$'\t' read -r name arg; do
			[[ $name == "--$key" ]] || continue
			for w in $(_sudoku_race_values "$arg"); do
				echo "$head$before:$key=$w"
			done
		done < <(_sudoku_race_options "$worker")
		return
	fi
	{
		_sudoku_race_options "$worker" "${worker##*/sudoku-}"
		printf '%s\t%s\n' --seed =N
	} | while IFS=$'\t' read -r name arg; do
		[[ $name == --* ]] || continue
		if [[ -n $arg && $arg != \[* ]]; then
			echo "$head$before:${name#--}="
		else
			echo "$head$before:${name#--}"
		fi
	done
}

# _sudoku_race_words: the words up to the cursor as the programs see them,
# in words[] and cword: bash splits a word at '=' and ':' (COMP_WORDBREAKS),
# which --workers=acs:ants=10 holds; the parts are joined again where the
# line has no blank between them.
_sudoku_race_words()
{
	local i w gap n=0 line=${COMP_LINE-} rest
	[[ -n $line ]] && line=${line:0:${COMP_POINT:-${#line}}}
	words=()
	for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		gap=1
		if [[ -n ${COMP_LINE-} ]]; then
			rest=${line#"${line%%[![:space:]]*}"}
			((${#rest} == ${#line})) && gap=0
			line=${rest#"$w"}
		elif [[ $w =~ ^[=:]+ || ${COMP_WORDS[i - 1]} =~ [=:]$ ]]; then
			gap=0
		fi
		if ((i > 0 && !gap && n > 0)); then
			words[n - 1]+=$w
		else
			words[n++]=$w
		fi
	done
	# the cursor just after a blank: a new, empty word
	if ((COMP_CWORD >= ${#COMP_WORDS[@]})); then
		words[n++]=
	fi
	cword=$((n - 1))
}

_sudoku_race_complete()
{
	local words cword cur prev prog name
	_sudoku_race_words
	cur=${words[cword]}
	prev=
	((cword > 0)) && prev=${words[cword - 1]}
	prog=${words[0]}
	# shellcheck disable=SC2088 # a "~/" the user typed, not expanded
	[[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
	name=${prog##*/}
	COMPREPLY=()
	local cands=() files='' dirs='' opt='' val='' arg=''

	# a value: --OPTION=VALUE, or VALUE after an option that takes one
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*} val=${cur#*=}
		# (an optional value too: --count=K)
		arg=$(_sudoku_race_options "$prog" | awk -F'\t' -v o="$opt" '$1 == o && !found { print $2; found = 1 }')
	elif [[ $prev == -* && $cur != -* ]] && arg=$(_sudoku_race_arg "$prog" "$prev"); then
		opt=$prev val=$cur
	fi
	if [[ -n $opt ]]; then
		local pre=
		[[ $cur == --*=* ]] && pre=$opt=
		case ${arg#[ =\[]} in
		LIST*) mapfile -t cands < <(_sudoku_race_entries "$prog" "$val") ;;
		WHEN*) cands=(staged all) ;;
		NAME*) cands=(cp sat dlx bf acs eda hill tabu gpu) ;;
		*FILE* | *.csv) files=1 ;;
		*DIR*) dirs=1 ;;
		RACER*) files=1 ;;
		URL*) cands=(redis://) ;;
		*) mapfile -t cands < <(_sudoku_race_values "$arg") ;;
		esac
		[[ ${arg#[ =\[]} == *URL* && $name == sudoku-race ]] && cands+=(redis://)
		COMPREPLY=($(compgen -W "${cands[*]}" -- "$val"))
		if [[ -n $files ]]; then
			COMPREPLY+=($(compgen -f -- "$val"))
		elif [[ -n $dirs ]]; then
			COMPREPLY+=($(compgen -d -- "$val"))
		fi
		[[ -n $files$dirs ]] && compopt -o filenames 2>/dev/null
		COMPREPLY=("${COMPREPLY[@]/#/$pre}")
	elif [[ $name == sudoku-race && $cword -eq 1 && $cur != -* ]]; then
		# the cache command, or puzzle files
		COMPREPLY=($(compgen -W cache -- "$cur") $(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
	elif [[ $name == sudoku-race && $prev == cache ]]; then
		COMPREPLY=($(compgen -W "stats clear export import" -- "$cur"))
	elif [[ $name == sudoku-race && " ${words[*]:1:cword} " == *" cache import "* ]]; then
		COMPREPLY=($(compgen -W --trust -- "$cur") $(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_sudoku_race_options "$prog" | cut -f1 | sort -u)" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
	fi

	# readline replaces only what follows the word's last '=' or ':' (when
	# they break words): the replies lose what comes before
	local breaks='' keep
	[[ ${COMP_WORDBREAKS-} == *=* ]] && breaks+='='
	[[ ${COMP_WORDBREAKS-} == *:* ]] && breaks+=':'
	if [[ -n $breaks && $cur == *[$breaks]* ]]; then
		keep=${cur%"${cur##*["$breaks"]}"}
		COMPREPLY=("${COMPREPLY[@]#"$keep"}")
	fi
	[[ ${COMPREPLY[*]} == *= || ${COMPREPLY[*]} == *"= "* ]] && compopt -o nospace 2>/dev/null
	return 0
}

complete -F _sudoku_race_complete \
	sudoku-race sudoku-cp sudoku-dlx sudoku-bf sudoku-acs sudoku-eda sudoku-hill sudoku-tabu sudoku-gpu \
	sudoku-sat sudoku-generate sudoku-rate sudoku-race-many sudoku-race-cactus
