# Writes a C file defining `const char SYMBOL[]` (the bytes of INPUT plus a
# terminating NUL) and `const size_t SYMBOL_len`. Run as
#   cmake -DINPUT=in -DOUTPUT=out.c -DSYMBOL=name -DHEADER=decl.h -P embed_text.cmake
# Bytes are written as hex so no escaping question can arise.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR byte_len "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${input_name} at build time; do not edit. */\n"
  "#include \"${HEADER}\"\n\n"
  "const char ${SYMBOL}[] = {\n    ${bytes}0x00};\n"
  "const size_t ${SYMBOL}_len = ${byte_len};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
