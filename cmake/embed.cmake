# embed.cmake -- write IN as a C string constant SYM into OUT.
file(READ ${IN} content HEX)
string(LENGTH "${content}" hexlen)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE ${OUT} "/* generated from ${IN} -- do not edit */\n#include <stddef.h>\nconst char ${SYM}[] = {${bytes} 0x00};\nconst size_t ${SYM}_len = sizeof(${SYM}) - 1;\n")
