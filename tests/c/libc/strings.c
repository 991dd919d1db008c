/* <string.h> as real programs use it; stdout compared between lli and `strata run`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sign(int x) { return (x > 0) - (x < 0); }

int main(void) {
  char buf[64];
  char small[8];
  const char *s = "hello, world";
  printf("strlen %d strnlen %d %d\n", (int)strlen(s), (int)strnlen(s, 5), (int)strnlen(s, 99));
  printf("strcmp %d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("b", "a")), strcmp("x", "x"));
  printf("strncmp %d %d\n", strncmp("abcX", "abcY", 3), sign(strncmp("abcX", "abcY", 4)));
  strcpy(buf, "foo");
  strcat(buf, "bar");
  strncat(buf, "bazzz", 3);
  printf("cat %s\n", buf);
  memset(small, 'x', sizeof small);
  strncpy(small, "ab", sizeof small);
  printf("strncpy %d %d %d\n", small[1], small[2], small[7]);
  strncpy(small, "abcdefghij", 4);
  printf("strncpy-trunc %c%c%c%c %d\n", small[0], small[1], small[2], small[3], small[4]);
  printf("strchr %s | %s | %d\n", strchr(s, 'o'), strrchr(s, 'o'), strchr(s, 'z') == NULL);
  printf("strchr-nul %d\n", (int)(strchr(s, 0) - s));
  printf("strstr %s | %d | %s\n", strstr(s, "wor"), strstr(s, "xyz") == NULL, strstr(s, ""));
  printf("spn %d %d %s\n", (int)strspn("123abc", "0123456789"), (int)strcspn("abc,def", ",;"),
         strpbrk("key=value", "=:"));
  memcpy(buf, "0123456789", 11);
  memmove(buf + 2, buf, 5);
  printf("memmove %s\n", buf);
  printf("memcmp %d %d\n", sign(memcmp("abc", "abd", 3)), memcmp("abc", "abd", 2));
  printf("memchr %s %d\n", (char *)memchr(s, ',', 12), memchr(s, 'q', 12) == NULL);
  char *d = strdup(s);
  char *n = strndup(s, 5);
  d[0] = 'J';
  printf("dup %s %s %s\n", d, n, s);
  free(d);
  free(n);
  return 0;
}
