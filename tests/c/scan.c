/* sscanf, strtol, strtoul, strtod, atoi, atol and atof as real C uses them: numbers printed and read back (cJSON checks a printed double
   this way), fields of a line, counts, widths, suppression, %n and the EOF result. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  double values[] = {0.1, -2.5e-300, 1e308, 123456.789, 3.0 / 7.0, 5e-324};
  for (int i = 0; i < 6; i++) {
    char text[64];
    double back = 0;
    snprintf(text, sizeof text, "%1.15g", values[i]);
    int n = sscanf(text, "%lg", &back);
    printf("%s -> %d %d\n", text, n, back == values[i]);
  }
  int a = 0, b = 0, used = 0;
  unsigned x = 0;
  long l = 0;
  short h = 0;
  char word[16] = {0}, c = 0;
  float f = 0;
  int n = sscanf("  key=12, -7 0x1F word 99999 1.25 Zrest", " key=%d, %i %x %15s %ld %f %c%n", &a,
                 &b, &x, word, &l, &f, &c, &used);
  printf("%d: %d %d %u %s %ld %g %c %d\n", n, a, b, x, word, l, f, c, used);
  n = sscanf("12345", "%2d%*1d%hd", &a, &h);
  printf("%d: %d %d\n", n, a, h);
  printf("%d %d %d\n", sscanf("abc", "%d", &a), sscanf("   ", "%d", &a), sscanf("", "%d", &a));
  const char *numbers[] = {"  -42xyz", "0x1fg", "0777", "zz", "", "99999999999999999999",
                           "-99999999999999999999", "-1", " 1.5e3x", "-inf", "x1", "2.5"};
  for (int i = 0; i < 12; i++) {
    char *end_l, *end_u, *end_d;
    long sl = strtol(numbers[i], &end_l, i == 3 ? 36 : 0);
    unsigned long ul = strtoul(numbers[i], &end_u, 10);
    double d = strtod(numbers[i], &end_d);
    printf("%ld %td %lu %td %g %td %d %ld %g\n", sl, end_l - numbers[i], ul, end_u - numbers[i], d,
           end_d - numbers[i], atoi(numbers[i]), atol(numbers[i]), atof(numbers[i]));
  }
  return 0;
}
