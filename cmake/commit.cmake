# Writes OUT (a header) with LB_COMMIT: the git commit of SRC ("-dirty"
# when the tree has changes), LB_GIT_COMMIT when given, else "unknown".
# Run at every build; the header is rewritten only when the commit changed.
if(LB_GIT_COMMIT)
  set(commit "${LB_GIT_COMMIT}")
else()
  execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  else()
    execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#define LB_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
