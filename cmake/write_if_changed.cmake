# write_if_changed(PATH CONTENT): rewrite PATH only when CONTENT differs, so
# generated sources do not trigger rebuilds when nothing changed.
function(write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()
