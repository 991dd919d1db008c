/* sscanf as real C uses it: numbers printed and read back (cJSON checks a printed double
   this way), fields of a line, counts, widths, suppression, %n and the EOF result. */
#include <stdio.h>

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
  return 0;
}
