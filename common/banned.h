/* banned.h -- turn unsafe libc calls into build errors; include it last. */
#ifndef FT_BANNED_H
#define FT_BANNED_H

#define FT_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) FT_BANNED(strcpy)
#undef strcat
#define strcat(x, y) FT_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) FT_BANNED(strncpy)
#undef sprintf
#define sprintf(...) FT_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) FT_BANNED(vsprintf)
#undef gets
#define gets(x) FT_BANNED(gets)
#undef atoi
#define atoi(x) FT_BANNED(atoi)
#undef atol
#define atol(x) FT_BANNED(atol)

#endif
