# fish completion for sudoku-race, its workers (sudoku-cp, sudoku-dlx, ...)
# and its scripts (sudoku-race-many, sudoku-race-cactus).
#
# As the bash and zsh completions do, it reads the program's own --help: the
# options and their descriptions, and the values of an option that takes one
# of a few words (--method=spbf|opbf|...), when fish loads this file for the
# command (its first TAB); the worker's own options in --workers
# NAME:KEY=VALUE (the "NAME options:" part of sudoku-NAME --help) and their
# values at each TAB. --schedule's and --presolver's values, which the
# racer's --help names in prose, are here.
# make install puts it in $(fishcompdir) under every program's name
# (NAME.fish): fish loads it for the command it is named after.

# __sudoku_race_options PROGRAM [SECTION]: one line per option line of
# PROGRAM's --help, "NAMES<US>ARG<US>DESCRIPTION" (<US>: the unit separator,
# \x1f; NAMES space-separated; ARG empty, "=WORD" or " WORD", or "[=WORD]"
# for an optional value); with SECTION, only "SECTION options:"
function __sudoku_race_options --argument-names prog section
    set -l in 1
    test -n "$section"; and set in 0
    for line in ($prog --help 2>/dev/null)
        if test -n "$section"
            if test "$line" = "$section options:"
                set in 1
                continue
            end
            test $in = 1 -a -z "$line"; and set in 0
        end
        test $in = 1; or continue
        string match -qr '^ {1,10}-' -- $line; or continue
        set -l rest (string trim -l -- $line)
        set -l names
        set -l lastarg ''
        while string match -qr '^(?<all>(?<name>--\[no-\][a-z0-9-]+|--[a-z0-9][a-z0-9-]*|-[a-zA-Z0-9])(?<arg>\[=[^] ]+\]|=[^ ,]+| [A-Z][A-Z.]*)?(?<sep>, )?)' -- $rest
            set rest (string sub -s (math (string length -- $all) + 1) -- $rest)
            if string match -q -- '--[no-]*' $name
                set -l base (string sub -s 8 -- $name)
                set names $names --$base --no-$base
            else
                set names $names $name
            end
            test -n "$arg"; and set lastarg $arg
            test -n "$sep"; or break
        end
        test (count $names) -gt 0; or continue
        printf '%s\x1f%s\x1f%s\n' "$names" "$lastarg" (string trim -- "$rest")
    end
end

# __sudoku_race_program NAME FROM: the worker NAME as the racer FROM finds
# it: beside FROM, in ../workers and ../cuda from it, then on the PATH
function __sudoku_race_program --argument-names name from
    if string match -q -- '*/*' $name
        echo $name
        return
    end
    string match -q -- '*/*' $from; or set from (command -s -- $from)
    if test -n "$from"
        set -l dir (dirname -- $from)
        for d in $dir $dir/../workers $dir/../cuda
            if test -x $d/sudoku-$name -a -f $d/sudoku-$name
                echo $d/sudoku-$name
                return
            end
        end
    end
    command -s -- sudoku-$name; or command -s -- $name
end

# __sudoku_race_words ARG: the words of an option's ARG (=a|b|c: a b c)
function __sudoku_race_words --argument-names arg
    set arg (string replace -r '^[ =\[]=?' '' -- $arg | string replace -r '\]$' '')
    string match -qr '[a-z]' -- $arg; or return 0
    for w in (string split '|' -- $arg)
        string match -qr '^[A-Z][A-Z0-9_.]*$' -- $w; or echo $w
    end
end

# --workers: NAME[:KEY[=VALUE]]..., comma-separated; the whole value each
function __sudoku_race_entries
    set -l cmd (commandline -opc)[1]
    set -l val (commandline -ct | string replace -r '^--[a-z-]+=' '' | string replace -r '^-w' '')
    set -l head ''
    set -l entry $val
    if string match -q -- '*,*' $val
        set head (string replace -r ',[^,]*$' ',' -- $val)
        set entry (string replace -r '^.*,' '' -- $val)
    end
    if not string match -q -- '*:*' $entry
        for w in cp sat dlx bf acs eda hill tabu gpu
            echo $head$w
        end
        return
    end
    set -l worker (__sudoku_race_program (string replace -r ':.*' '' -- $entry) $cmd); or return
    set -l before (string replace -r ':[^:]*$' '' -- $entry)
    set -l last (string replace -r '^.*:' '' -- $entry)
    if string match -q -- '*=*' $last
        set -l key (string replace -r '=.*' '' -- $last)
        for line in (__sudoku_race_options $worker)
            set -l f (string split \x1f -- $line)
            contains -- --$key (string split ' ' -- $f[1]); or continue
            for w in (__sudoku_race_words $f[2])
                echo $head$before:$key=$w
            end
        end
        return
    end
    set -l section (string replace -r '^.*/sudoku-' '' -- $worker)
    for line in (__sudoku_race_options $worker $section) (printf '%s\x1f%s\x1f%s' --seed =N 'seed of the random numbers')
        set -l f (string split \x1f -- $line)
        for n in (string split ' ' -- $f[1])
            string match -q -- '--*' $n; or continue
            set -l k (string sub -s 3 -- $n)
            if test -n "$f[2]"; and not string match -q -- '[*' $f[2]
                printf '%s\t%s\n' $head$before:$k= $f[3]
            else
                printf '%s\t%s\n' $head$before:$k $f[3]
            end
        end
    end
end

# __sudoku_race_register COMMAND: COMMAND's completions, from its --help
function __sudoku_race_register --argument-names cmd
    complete -c $cmd -e
    for line in (__sudoku_race_options $cmd)
        set -l f (string split \x1f -- $line)
        set -l spec -c $cmd -d $f[3]
        for n in (string split ' ' -- $f[1])
            if string match -q -- '--*' $n
                set spec $spec -l (string sub -s 3 -- $n)
            else
                set spec $spec -s (string sub -s 2 -- $n)
            end
        end
        set -l kind (string replace -r '^[ =]' '' -- $f[2])
        switch $f[2]
            case '' '[*'
                # a flag, or a value only as --OPTION=VALUE
            case '*'
                switch $kind
                    case 'LIST*'
                        set spec $spec -x -a '(__sudoku_race_entries)'
                    case 'WHEN*'
                        set spec $spec -x -a 'staged all'
                    case 'NAME*'
                        set spec $spec -x -a 'cp sat dlx bf acs eda hill tabu gpu'
                    case '*FILE*' '*.csv' 'RACER*'
                        set spec $spec -r -F
                    case 'DIR|URL*'
                        set spec $spec -x -a '(__fish_complete_directories) redis://'
                    case '*DIR*'
                        set spec $spec -x -a '(__fish_complete_directories)'
                    case 'URL*'
                        set spec $spec -x -a 'redis://'
                    case '*'
                        # the words, or no completion (a number)
                        set spec $spec -x
                        set -l words (__sudoku_race_words $f[2])
                        test (count $words) -gt 0; and set spec $spec -a "$words"
                end
        end
        complete $spec
    end
    if test $cmd = sudoku-race
        complete -c $cmd -n '__fish_is_nth_token 1' -a cache -d 'work on the result cache'
        complete -c $cmd -n '__fish_seen_subcommand_from cache; and not __fish_seen_subcommand_from stats clear export import' \
            -f -a 'stats\t"what the cache holds" clear\t"empty it" export\t"write every entry as a text line" import\t"read such lines into the cache"'
        complete -c $cmd -n '__fish_seen_subcommand_from import' -l trust -d 'keep the claims as they are'
    end
end

# fish loads this file as NAME.fish for the command NAME: NAME's completions
set -l __sudoku_race_cmd (basename (status filename) .fish)
if contains -- $__sudoku_race_cmd sudoku-race sudoku-cp sudoku-dlx sudoku-bf sudoku-acs sudoku-eda sudoku-hill \
        sudoku-tabu sudoku-gpu sudoku-sat sudoku-generate sudoku-rate sudoku-race-many sudoku-race-cactus
    __sudoku_race_register $__sudoku_race_cmd
end
