# fish completion for arcturn(1)
#
# make install puts this file in PREFIX/share/fish/vendor_completions.d/.
# It completes the commands, their options and option values, session ids
# (from `arcturn session list`) and paths, and, after exec's options, the
# command to run with its own completion. If arcturn cannot be run or
# fails, session ids are simply not offered.

# The words typed so far, the program's name first.
function __arcturn_tokens
    commandline -opc
end

# The command (exec, diff, ...) and the index of its word, or fail.
function __arcturn_cmd_at
    set -l t (__arcturn_tokens)
    set -l i 2
    while test $i -le (count $t)
        switch $t[$i]
            case -C --session
                set i (math $i + 1)
            case '-*'
            case '*'
                echo $t[$i]
                echo $i
                return 0
        end
        set i (math $i + 1)
    end
    return 1
end

function __arcturn_no_cmd
    not __arcturn_cmd_at >/dev/null
end

# The command's positional words typed so far (its options and their
# values left out), after the command's name.
function __arcturn_args
    set -l c (__arcturn_cmd_at); or return 1
    set -l t (__arcturn_tokens)
    set -l i (math $c[2] + 1)
    while test $i -le (count $t)
        switch $t[$i]
            case --sandbox --grant --network --allow-unix --cwd --old --new --expect --label --progress-fd
                set i (math $i + 1)
            case '-*'
            case '*'
                echo $t[$i]
        end
        set i (math $i + 1)
    end
end

# __arcturn_using CMD [N]: the command is CMD and, with N, it has N
# positional words so far.
function __arcturn_using
    set -l c (__arcturn_cmd_at); or return 1
    test "$c[1]" = $argv[1]; or return 1
    set -q argv[2]; or return 0
    test (count (__arcturn_args)) -eq $argv[2]
end

# __arcturn_sub CMD SUB: CMD SUB and nothing after it yet.
function __arcturn_sub
    __arcturn_using $argv[1] 1; or return 1
    test (__arcturn_args)[1] = $argv[2]
end

# exec's own words are done: CMD was given, or "--".
function __arcturn_exec_cmd
    set -l c (__arcturn_cmd_at); or return 1
    test "$c[1]" = exec; or return 1
    set -l t (__arcturn_tokens)
    set -l i (math $c[2] + 1)
    while test $i -le (count $t)
        switch $t[$i]
            case --sandbox --grant --network --allow-unix --cwd
                set i (math $i + 1)
            case --
                return 0
            case '-*'
            case '*'
                return 0
        end
        set i (math $i + 1)
    end
    return 1
end

# CMD [ARG]... after exec's options, completed as fish would complete it.
function __arcturn_exec_complete
    set -l c (__arcturn_cmd_at); or return
    set -l t (__arcturn_tokens)
    set -l i (math $c[2] + 1)
    while test $i -le (count $t)
        switch $t[$i]
            case --sandbox --grant --network --allow-unix --cwd
                set i (math $i + 1)
            case --
                set i (math $i + 1)
                break
            case '-*'
            case '*'
                break
        end
        set i (math $i + 1)
    end
    set -l rest
    if test $i -le (count $t)
        set rest (string escape -- $t[$i..-1])
    end
    complete -C (string join ' ' -- $rest (commandline -ct))
end

# The arcturn to ask for session ids: the one typed, when it is a path to
# an executable, else the one on PATH.
function __arcturn_sessions
    set -l bin (__arcturn_tokens)[1]
    string match -q -- '*/*' $bin; and test -x "$bin"; or set bin arcturn
    command -q $bin; or return 0
    command $bin session list 2>/dev/null </dev/null |
        string replace -rf '^([a-z0-9][a-z0-9-]*) +([0-9]+) +(.*)$' '$1\t$2 pending, $3'
end

# --color=WHEN for diff (the value only after "=").
function __arcturn_color
    set -l cur (commandline -ct)
    string match -q -- '--colo*=*' $cur; or return
    set -l opt (string replace -r '=.*' '' -- $cur)
    for v in auto always never
        echo $opt=$v
    end
end

complete -c arcturn -e
complete -c arcturn -f

# Global options and the commands.
complete -c arcturn -n __arcturn_no_cmd -s C -x -a '(__fish_complete_directories)' -d 'workspace directory'
complete -c arcturn -n __arcturn_no_cmd -l session -x -a '(__arcturn_sessions)' -d 'use this dry-run session'
complete -c arcturn -n __arcturn_no_cmd -l json -d 'machine-readable output'
complete -c arcturn -n __arcturn_no_cmd -s q -l quiet -d 'fewer messages'
complete -c arcturn -n __arcturn_no_cmd -s h -l help -d 'show usage'
complete -c arcturn -n __arcturn_no_cmd -l version -d 'show version and build'
complete -c arcturn -n __arcturn_no_cmd -a exec -d 'run a command with confined writes'
complete -c arcturn -n __arcturn_no_cmd -a sandbox -d 'what confines commands here'
complete -c arcturn -n __arcturn_no_cmd -a write -d 'write stdin to a file'
complete -c arcturn -n __arcturn_no_cmd -a edit -d 'replace text in a file'
complete -c arcturn -n __arcturn_no_cmd -a read -d 'print a file as the session sees it'
complete -c arcturn -n __arcturn_no_cmd -a diff -d 'show pending changes'
complete -c arcturn -n __arcturn_no_cmd -a apply -d 'apply pending changes'
complete -c arcturn -n __arcturn_no_cmd -a discard -d 'drop pending changes'
complete -c arcturn -n __arcturn_no_cmd -a session -d 'list, show, remove sessions'
complete -c arcturn -n __arcturn_no_cmd -a turn -d 'start a turn'
complete -c arcturn -n __arcturn_no_cmd -a rewind -d 'restore what turns changed'
complete -c arcturn -n __arcturn_no_cmd -a undo -d 'take the last turn back'
complete -c arcturn -n __arcturn_no_cmd -a checkpoints -d 'list the turns'
complete -c arcturn -n __arcturn_no_cmd -a mcp -d 'serve the workspace over MCP (stdio)'

# Every command takes --help.
for c in exec sandbox write edit read diff apply discard session turn rewind undo checkpoints mcp
    complete -c arcturn -n "__arcturn_using $c 0" -s h -l help -d 'show usage'
end

# exec [--sandbox MODE] [--grant PATH]... [--dry-run | --checkpoint] [--require-sandbox]
#      [--network on|off] [--] CMD [ARG]...
set -l e 'not __arcturn_exec_cmd; and __arcturn_using exec'
complete -c arcturn -n $e -l sandbox -x -a 'off\t"no confinement" workspace-write\t"default" read-only\t"temp dir and devices only"' -d 'sandbox mode'
complete -c arcturn -n $e -l grant -x -a '(__fish_complete_directories)' -d 'also allow writes beneath PATH'
complete -c arcturn -n $e -l dry-run -d 'capture writes into the session'
complete -c arcturn -n $e -l checkpoint -d 'as --dry-run, then apply as one undoable turn'
complete -c arcturn -n $e -l join-turn -d 'with --checkpoint: add to the turn arcturn turn began'
complete -c arcturn -n $e -l require-sandbox -d 'exit 125 instead of running unconfined'
complete -c arcturn -n $e -l network -x -a 'on off' -d 'keep or cut network access'
complete -c arcturn -n $e -l allow-unix -r -F -d 'also allow this unix socket'
complete -c arcturn -n $e -l cwd -x -a '(__fish_complete_directories)' -d 'run the command in DIR, inside the workspace'
complete -c arcturn -n $e -l explain -d 'on failure, name the writable roots and --grant'
complete -c arcturn -n $e -l json-fd -x -d 'say how the command ended in JSON on this fd'
complete -c arcturn -n $e -a '(__fish_complete_command)'
complete -c arcturn -n __arcturn_exec_cmd -x -a '(__arcturn_exec_complete)'

# sandbox status [--json] | sandbox unstamp [PATH]
complete -c arcturn -n '__arcturn_using sandbox 0' -a status -d 'backend and guarantees here'
complete -c arcturn -n '__arcturn_using sandbox 0' -a unstamp -d 'restore integrity labels (Windows)'
complete -c arcturn -n '__arcturn_sub sandbox status' -l json -d 'machine-readable report'
complete -c arcturn -n '__arcturn_sub sandbox unstamp' -x -a '(__fish_complete_directories)'

# write [--expect-sha256 HEX] PATH, read PATH, edit PATH --old TEXT --new TEXT [--all]
for c in write read edit
    complete -c arcturn -n "__arcturn_using $c" -l dry-run -d 'into the dry-run session'
    complete -c arcturn -n "__arcturn_using $c 0" -F
end
complete -c arcturn -n '__arcturn_using write' -l expect-sha256 -x -d 'write only over content with this SHA-256'
complete -c arcturn -n '__arcturn_using edit' -l old -x -d 'the text to replace'
complete -c arcturn -n '__arcturn_using edit' -l new -x -d 'the replacement'
complete -c arcturn -n '__arcturn_using edit' -l all -d 'replace every occurrence'

# diff [--full] [--stat] [--color=auto|always|never]
complete -c arcturn -n '__arcturn_using diff' -l full -d 'no 200-line cap per file'
complete -c arcturn -n '__arcturn_using diff' -l stat -d 'a diffstat'
complete -c arcturn -n '__arcturn_using diff' -l name-only -d 'only the paths'
complete -c arcturn -n '__arcturn_using diff' -l name-status -d 'the paths with their status'
complete -c arcturn -n '__arcturn_using diff' -l no-pager -d 'never through the pager'
complete -c arcturn -n '__arcturn_using diff' -l color -d 'colour: =auto, =always, =never'
complete -c arcturn -n '__arcturn_using diff' -l colour -d 'colour: =auto, =always, =never'
complete -c arcturn -n '__arcturn_using diff' -a '(__arcturn_color)'

# apply [--yes] [--expect DIGEST] [--force] [--progress-fd N] [PATH]..., discard [--yes] [PATH]...
complete -c arcturn -n '__arcturn_using apply' -s y -l yes -d 'do not ask'
complete -c arcturn -n '__arcturn_using apply' -l expect -x -d 'the digest arcturn diff printed'
complete -c arcturn -n '__arcturn_using apply' -l force -d 'land the named paths over conflicts'
complete -c arcturn -n '__arcturn_using apply' -l progress-fd -x -d 'a line per file done to this descriptor'
complete -c arcturn -n '__arcturn_using apply' -F
complete -c arcturn -n '__arcturn_using discard' -s y -l yes -d 'do not ask'
complete -c arcturn -n '__arcturn_using discard' -F

# session list|show|rm [ID]
complete -c arcturn -n '__arcturn_using session 0' -a list -d 'every session'
complete -c arcturn -n '__arcturn_using session 0' -a show -d 'one session and its pending files'
complete -c arcturn -n '__arcturn_using session 0' -a rm -d 'remove a session'
complete -c arcturn -n '__arcturn_using session' -s y -l yes -d 'rm: do not ask'
complete -c arcturn -n '__arcturn_sub session show' -x -a '(__arcturn_sessions)'
complete -c arcturn -n '__arcturn_sub session rm' -x -a '(__arcturn_sessions)'

# turn [--label TEXT], rewind [TURN] [--force], undo [--force], checkpoints [--json] [--prune-damaged]
complete -c arcturn -n '__arcturn_using turn' -l label -x -d 'a label for the turn'
complete -c arcturn -n '__arcturn_using rewind' -l force -d 'restore over conflicts'
complete -c arcturn -n '__arcturn_using undo' -l force -d 'restore over conflicts'
complete -c arcturn -n '__arcturn_using checkpoints' -l json -d 'machine-readable list'
complete -c arcturn -n '__arcturn_using checkpoints' -l prune-damaged -d 'remove damaged turn records'

# mcp [--dry-run] [--allow-apply] [--max-output BYTES]
complete -c arcturn -n '__arcturn_using mcp' -l dry-run -d 'capture writes and commands in the session'
complete -c arcturn -n '__arcturn_using mcp' -l allow-apply -d 'also offer apply_changes'
complete -c arcturn -n '__arcturn_using mcp' -l max-output -r -d 'bytes of text a listing or search returns'
