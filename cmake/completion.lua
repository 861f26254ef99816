-- Writes the bash completion of luabench from the option table (lb.options),
-- the engines (lb.engines) and the host's own options:
--   luabench cmake/completion.lua out=FILE
local out = assert(args.out, "out= is required")
local names, engines = {}, {}
for _, o in ipairs(lb.options()) do
  for n in tostring(o.name):gmatch("[^,%s]+") do names[#names + 1] = n end
end
for _, e in ipairs(lb.engines()) do engines[#engines + 1] = type(e) == "table" and e.name or tostring(e) end
table.sort(names)
local s = [[
# bash completion of luabench (written from its option table at build time)
_luabench() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} script="" w
  local host="-h --help -v --version --list-engines -q --quiet --readonly --allow-overwrite --fio"
  local wl="@NAMES@"
  local engines="@ENGINES@"
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case $w in *.lua) script=$w ;; fio) script=fio ;; compare) script=compare ;; esac
  done
  # "=" splits words in bash: --ioengine = li
  if [ "$prev" = "=" ] || [ "$cur" = "=" ]; then
    local name=${COMP_WORDS[COMP_CWORD-2]}
    [ "$cur" = "=" ] && { name=$prev; cur=""; }
    case $name in --ioengine|--engine|ioengine|engine)
      COMPREPLY=($(compgen -W "$engines" -- "$cur")); return ;;
    esac
  fi
  case $cur in
    --ioengine=*|--engine=*|ioengine=*|engine=*)
      COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$engines" -- "${cur#*=}")); return ;;
  esac
  if [ "$script" = fio ]; then
    COMPREPLY=($(compgen -W "$(printf -- '--%s= ' $wl) --output-format= --output= --help" -- "$cur"))
    compopt -o nospace 2>/dev/null; return
  elif [ "$script" = compare ]; then
    COMPREPLY=($(compgen -W "--format= --confidence= --metrics= --threshold= --by= --ignore= --help" -- "$cur"))
    [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
    return
  elif [ -n "$script" ]; then
    # the script's parameters, from its help=1 (lines "  name ...")
    local params
    params=$(luabench "$script" help=1 2>/dev/null | sed -n 's/^  \([a-z_][a-z0-9_]*\) .*/\1=/p')
    COMPREPLY=($(compgen -W "$params" -- "$cur"))
    compopt -o nospace 2>/dev/null; return
  fi
  case $cur in
    -*) COMPREPLY=($(compgen -W "$host" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "fio compare" -- "$cur") $(compgen -f -X '!*.lua' -- "$cur") $(compgen -d -- "$cur")) ;;
  esac
}
complete -F _luabench luabench
]]
s = s:gsub("@NAMES@", table.concat(names, " ")):gsub("@ENGINES@", table.concat(engines, " "))
local f = assert(io.open(out, "w"))
f:write(s)
f:close()
