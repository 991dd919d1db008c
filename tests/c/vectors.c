/* Vector values as clang emits them: SSE2 intrinsics (emmintrin.h inline helpers, which
   become vector arithmetic, compares, shuffles, casts, loads and stores of <N x T>) and
   GCC's vector_size extension. Only intrinsics that clang lowers to plain vector IR are
   used, so the reference interpreter can run the program too. */
#include <emmintrin.h>
#include <stdio.h>

typedef int v4si __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));
typedef unsigned char v16qu __attribute__((vector_size(16)));
typedef long long v2di __attribute__((vector_size(16)));
typedef short v8hi __attribute__((vector_size(16)));

static int sum4(v4si v) { return v[0] + v[1] + v[2] + v[3]; }

static v4si mix(v4si a, v4si b, int k) {
  v4si m = a > b;                       /* icmp, sext to <4 x i32> */
  v4si r = (a & m) | (b & ~m);          /* max lane by lane */
  r[k & 3] = k * 7;                      /* insertelement with a variable index */
  return r * 3 - (r >> 1);
}

static float dot(const float *x, const float *y, int n) {
  __m128 acc = _mm_setzero_ps();
  for (int i = 0; i + 4 <= n; i += 4)
    acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(x + i), _mm_loadu_ps(y + i)));
  float out[4];
  _mm_storeu_ps(out, acc);
  return out[0] + out[1] + out[2] + out[3];
}

static unsigned checksum(const unsigned char *p, int n) {
  __m128i acc = _mm_setzero_si128();
  for (int i = 0; i + 16 <= n; i += 16) {
    __m128i b = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i lo = _mm_unpacklo_epi8(b, _mm_setzero_si128());
    __m128i hi = _mm_unpackhi_epi8(b, _mm_setzero_si128());
    acc = _mm_add_epi16(acc, _mm_add_epi16(lo, hi));
    acc = _mm_xor_si128(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(0, 1, 2, 3)));
  }
  v8hi h = (v8hi)acc;
  unsigned s = 0;
  for (int i = 0; i < 8; i++) s = s * 31 + (unsigned short)h[i];
  return s;
}

int main(void) {
  v4si a = {1, -5, 9, 100}, b = {3, 4, -2, 50};
  v4si c = mix(a, b, 2);
  printf("mix %d %d %d %d sum %d\n", c[0], c[1], c[2], c[3], sum4(c));

  float x[8], y[8];
  for (int i = 0; i < 8; i++) { x[i] = i * 0.5f; y[i] = 8 - i; }
  printf("dot %.2f\n", dot(x, y, 8));

  unsigned char bytes[64];
  for (int i = 0; i < 64; i++) bytes[i] = (unsigned char)(i * 37 + 11);
  printf("checksum %u\n", checksum(bytes, 64));

  __m128i q = _mm_set_epi32(4, 3, 2, 1);
  __m128i gt = _mm_cmpgt_epi32(q, _mm_set1_epi32(2));
  __m128 f = _mm_cvtepi32_ps(_mm_add_epi32(q, gt));
  __m128d d = _mm_cvtps_pd(f);
  __m128d d2 = _mm_mul_pd(d, _mm_set_pd(0.25, 4.0));
  double out[2];
  _mm_storeu_pd(out, d2);
  printf("cvt %.3f %.3f\n", out[0], out[1]);

  v4sf g = {1.5f, -2.0f, 3.25f, 0.0f};
  v4si gi = __builtin_convertvector(g * 2.0f, v4si);
  v16qu bytesv = (v16qu)gi;
  v2di wide = (v2di)gi;
  printf("conv %d %d %d %d byte %u wide %lld\n", gi[0], gi[1], gi[2], gi[3], bytesv[4],
         wide[1]);
  v4si shuffled = __builtin_shufflevector(a, b, 7, 0, 5, 2);
  return sum4(shuffled) & 0x7f;
}
