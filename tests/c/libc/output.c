/* Formatted output: printf, fprintf to stdout and stderr, sprintf, snprintf, puts, putchar,
   fputs, fputc, putc, fwrite. The exit status is what snprintf reported. */
#include <stdio.h>
#include <string.h>

int main(void) {
  char buf[32];
  char tiny[6];
  int n = printf("%d %5.2f %-4s| %x %c %%\n", -42, 3.14159, "ab", 255, 'Z');
  printf("printf returned %d\n", n);
  fprintf(stdout, "to stdout %ld\n", 1234567890123L);
  fprintf(stderr, "to stderr %s\n", "oops");
  n = sprintf(buf, "[%03d|%+d]", 7, 8);
  printf("sprintf %d %s\n", n, buf);
  n = snprintf(tiny, sizeof tiny, "%s-%d", "abcdef", 12);
  printf("snprintf %d %s %d\n", n, tiny, (int)strlen(tiny));
  printf("snprintf-null %d\n", snprintf(NULL, 0, "%d", 123456));
  puts("puts line");
  putchar('p');
  putchar('\n');
  fputs("fputs out\n", stdout);
  fputs("fputs err\n", stderr);
  fputc('c', stdout);
  putc('\n', stdout);
  fwrite("fwrite!\n", 1, 8, stdout);
  fflush(stdout);
  return n - 7;
}
