/* The builtins and <math.h> functions clang turns into LLVM intrinsics (ctlz, cttz, ctpop,
   bswap, bitreverse, fshl/fshr, the overflow checks, fabs, copysign, floor, ceil, trunc,
   round, rint) and, at -O2, the min/max/abs it forms from comparisons (scalar and
   vectorised) and the bcmp it calls for a memcmp compared with zero. */
#include <math.h>
#include <stdio.h>
#include <string.h>

static int a[64], b[64], c[64];

__attribute__((noinline)) static int smallest(int x, int y) { return x < y ? x : y; }
__attribute__((noinline)) static unsigned largest(unsigned x, unsigned y) { return x > y ? x : y; }
__attribute__((noinline)) static long magnitude(long x) { return x < 0 ? -x : x; }

int main(void) {
  unsigned words[] = {1u, 0x80000000u, 0x00f00000u, 0xdeadbeefu, 12345u};
  for (int i = 0; i < 5; i++) {
    unsigned w = words[i];
    printf("%08x clz=%d ctz=%d pop=%d bswap=%08x rev=%08x rotl=%08x rotr=%08x\n", w,
           __builtin_clz(w), __builtin_ctz(w), __builtin_popcount(w), __builtin_bswap32(w),
           __builtin_bitreverse32(w), __builtin_rotateleft32(w, i * 7),
           __builtin_rotateright32(w, i * 5));
  }
  unsigned long long big = 0x0123456789abcdefull;
  printf("clzll=%d ctzll=%d popll=%d bswap64=%016llx bswap16=%04x\n", __builtin_clzll(big),
         __builtin_ctzll(big), __builtin_popcountll(big), (unsigned long long)__builtin_bswap64(big),
         __builtin_bswap16((unsigned short)big));
  int ints[] = {0x7fffffff, -0x7fffffff - 1, 1, -1, 46341, 0};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      int s, d, m;
      unsigned us;
      int os = __builtin_add_overflow(ints[i], ints[j], &s);
      int od = __builtin_sub_overflow(ints[i], ints[j], &d);
      int om = __builtin_mul_overflow(ints[i], ints[j], &m);
      int ou = __builtin_add_overflow((unsigned)ints[i], (unsigned)ints[j], &us);
      printf("%d%d%d%d %d %d %d %u|", os, od, om, ou, s, d, m, us);
    }
  printf("\n");
  double xs[] = {-2.5, -0.5, 0.5, 1.5, 2.5, -0.0};
  for (int i = 0; i < 6; i++) {
    double x = xs[i];
    float f = (float)x;
    printf("%g: fabs=%g copysign=%g floor=%g ceil=%g trunc=%g round=%g rint=%g fabsf=%g\n", x,
           fabs(x), copysign(3.0, x), floor(x), ceil(x), trunc(x), round(x), rint(x), fabsf(f));
  }
  long sum = 0;
  for (int i = 0; i < 64; i++) {
    a[i] = (i * 37) % 23 - 11;
    b[i] = (i * 11) % 19 - 9;
  }
  for (int i = 0; i < 64; i++) c[i] = a[i] < b[i] ? a[i] : b[i];
  for (int i = 0; i < 64; i++) sum += c[i];
  for (int i = 0; i < 64; i++) c[i] = a[i] < 0 ? -a[i] : a[i];
  for (int i = 0; i < 64; i++) sum = sum * 3 + c[i];
  for (int i = 0; i < 64; i++) sum += smallest(a[i], b[i]) + largest(a[i], b[i]) + magnitude(a[i]);
  printf("sum=%ld same=%d differ=%d\n", sum, memcmp(a, a, sizeof a) == 0,
         memcmp(a, b, sizeof a) != 0);
  return 0;
}
