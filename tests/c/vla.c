/* Variable-length arrays (dynamic alloca with llvm.stacksave/stackrestore) inside a loop,
 * a VLA of structs, and a 2-D VLA passed to a function. */
#include <stdio.h>

struct pt { int x; double y; };

static long sum2d(int n, int m, int a[n][m]) {
    long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += (long)a[i][j] * (i + 1);
    return s;
}

int main(void) {
    long total = 0;
    for (int n = 1; n <= 40; n++) {
        int v[n];
        struct pt p[n % 7 + 1];
        for (int i = 0; i < n; i++)
            v[i] = i * n - 3;
        for (int i = 0; i < n % 7 + 1; i++) {
            p[i].x = v[i % n];
            p[i].y = v[i % n] * 0.5;
        }
        int grid[n][n % 5 + 1];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n % 5 + 1; j++)
                grid[i][j] = v[i] ^ j;
        total += sum2d(n, n % 5 + 1, grid) + p[n % 7].x + (long)p[0].y;
    }
    printf("%ld\n", total);
    return (int)(total & 0x3f);
}
