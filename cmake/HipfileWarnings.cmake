# SPDX-License-Identifier: MIT
# hipfile_warnings(<target>): the project's warning set; -Werror when HIPFILE_WERROR is ON (CI).
function(hipfile_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wnon-virtual-dtor
                         -Wimplicit-fallthrough -Wno-missing-field-initializers)
  if(HIPFILE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
