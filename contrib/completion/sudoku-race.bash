# bash completion for sudoku-race, its workers (sudoku-cp, sudoku-dlx, ...),
# sudoku-generate and sudoku-rate.
# Options come from the program's own --help, so they never go stale.
# Install: make install puts it in $(datadir)/bash-completion/completions.

_sudoku_race_complete()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [[ $COMP_CWORD -eq 1 && ${COMP_WORDS[0]##*/} == sudoku-race && $cur != -* ]]; then
		# the cache subcommand, or puzzle files
		COMPREPLY=($(compgen -W cache -- "$cur") $(compgen -f -- "$cur"))
		return
	fi
	if [[ $prev == cache ]]; then
		COMPREPLY=($(compgen -W "stats clear export import" -- "$cur"))
		return
	fi
	case $prev in
	--cache) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--schedule) COMPREPLY=($(compgen -W "staged all" -- "$cur")); return ;;
	--presolver) COMPREPLY=($(compgen -W "cp sat dlx" -- "$cur")); return ;;
	-y | --symmetry) COMPREPLY=($(compgen -W "none rotate180 rotate90 mirror flip diagonal random" -- "$cur")); return ;;
	-d | --difficulty) COMPREPLY=($(compgen -W "any simple easy intermediate hard expert extreme" -- "$cur")); return ;;
	-b | --box) COMPREPLY=($(compgen -W "2 3 4 5 6 7 8" -- "$cur")); return ;;
	-w | --workers)
		COMPREPLY=($(compgen -W "cp dlx bf acs eda hill tabu gpu sat" -- "${cur##*,}"))
		[[ $cur == *,* ]] && COMPREPLY=("${COMPREPLY[@]/#/${cur%,*},}")
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		opts=$("${COMP_WORDS[0]}" --help 2>/dev/null |
			grep -o -- '--[][a-z-]*[a-z]' | sed 's/\[no-\]//' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _sudoku_race_complete \
	sudoku-race sudoku-cp sudoku-dlx sudoku-bf sudoku-acs sudoku-eda sudoku-hill sudoku-tabu sudoku-gpu \
	sudoku-sat sudoku-generate sudoku-rate
