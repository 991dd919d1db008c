/* <ctype.h> through glibc's macros (clang -O0 calls __ctype_b_loc) and the functions. */
#include <ctype.h>
#include <stdio.h>

int main(void) {
  int (*fns[])(int) = {isalnum, isalpha, isblank, iscntrl, isdigit, isgraph,
                       islower, isprint, ispunct, isspace, isupper, isxdigit};
  const char *names = "alnum alpha blank cntrl digit graph lower print punct space upper xdigit";
  unsigned long sum = 0;
  for (int c = -1; c < 256; c++) {
    int bits = 0;
    bits |= !!isalnum(c) << 0;
    bits |= !!isalpha(c) << 1;
    bits |= !!isblank(c) << 2;
    bits |= !!iscntrl(c) << 3;
    bits |= !!isdigit(c) << 4;
    bits |= !!isgraph(c) << 5;
    bits |= !!islower(c) << 6;
    bits |= !!isprint(c) << 7;
    bits |= !!ispunct(c) << 8;
    bits |= !!isspace(c) << 9;
    bits |= !!isupper(c) << 10;
    bits |= !!isxdigit(c) << 11;
    int fbits = 0;
    for (int k = 0; k < 12; k++)
      fbits |= !!fns[k](c) << k;
    if (bits != fbits)
      printf("macro and function differ at %d: %x %x\n", c, bits, fbits);
    sum = sum * 31 + bits + 7 * toupper(c) + 13 * tolower(c);
    if (c >= 32 && c < 127 && c % 8 == 0)
      printf("%3d %c %03x %c%c\n", c, c, bits, toupper(c), tolower(c));
  }
  printf("%s\nsum %lu\n", names, sum);
  return 0;
}
