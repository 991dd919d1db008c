/* Structs, arrays, pointers, globals with relocations, function pointers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct point { int x, y; };
struct shape {
    char tag;
    struct point corners[4];
    double area;
    const char *name;
    struct shape *next;
};
struct __attribute__((packed)) packed { char c; int i; short s; };
union bits { float f; unsigned u; unsigned char b[4]; };

struct node { int value; struct node *left, *right; };

static struct point origin = { 0, 0 };
struct point *origin_ptr = &origin;
int table[3][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } };
const char *words[] = { "alpha", "beta", "gamma", "delta" };
struct shape shapes[2] = {
    { 's', { { 0, 0 }, { 2, 0 }, { 2, 2 }, { 0, 2 } }, 4.0, "square", &shapes[1] },
    { 'r', { { 0, 0 }, { 3, 0 }, { 3, 1 }, { 0, 1 } }, 3.0, "rect", 0 },
};
struct packed pk = { 'p', 0x12345678, -2 };
int *int_ptr = &table[1][2];
static char buffer[64];

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static struct node *insert(struct node *root, struct node *n) {
    if (!root) return n;
    if (n->value < root->value) root->left = insert(root->left, n);
    else root->right = insert(root->right, n);
    return root;
}

static int sum_tree(struct node *n) { return n ? n->value + sum_tree(n->left) + sum_tree(n->right) : 0; }
static int depth(struct node *n) {
    if (!n) return 0;
    int l = depth(n->left), r = depth(n->right);
    return 1 + (l > r ? l : r);
}

static int perimeter(struct shape s) {
    int p = 0;
    for (int i = 0; i < 4; i++) {
        struct point a = s.corners[i], b = s.corners[(i + 1) % 4];
        p += abs(a.x - b.x) + abs(a.y - b.y);
    }
    return p;
}

static void fill(int *a, int n, int (*f)(int)) { for (int i = 0; i < n; i++) a[i] = f(i); }
static int square(int x) { return x * x; }
static int negate(int x) { return -x * 3 + 7; }

int main(void) {
    int total = 0;
    for (struct shape *s = &shapes[0]; s; s = s->next) {
        printf("%c %s area %.1f perim %d\n", s->tag, s->name, s->area, perimeter(*s));
        total += perimeter(*s);
    }
    int sum = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) sum += table[i][j] * (i + 1);
    printf("table %d %d %d\n", sum, *int_ptr, origin_ptr->x);
    printf("packed %c %x %d size %zu\n", pk.c, pk.i, pk.s, sizeof(struct packed));
    union bits u;
    u.f = 1.5f;
    printf("union %08x %d\n", u.u, u.b[3]);
    int arr[10];
    fill(arr, 10, negate);
    qsort(arr, 10, sizeof(int), cmp_int);
    for (int i = 0; i < 10; i++) printf("%d ", arr[i]);
    printf("\n");
    int (*fs[2])(int) = { square, negate };
    printf("fp %d %d\n", fs[0](7), fs[1](7));
    struct node nodes[16];
    struct node *root = 0;
    for (int i = 0; i < 16; i++) {
        nodes[i].value = (i * 7919) % 31;
        nodes[i].left = nodes[i].right = 0;
        root = insert(root, &nodes[i]);
    }
    printf("tree sum %d depth %d\n", sum_tree(root), depth(root));
    strcpy(buffer, words[2]);
    strcat(buffer, "-");
    strcat(buffer, words[3]);
    printf("%s %zu\n", buffer, strlen(buffer));
    char *heap = malloc(32);
    memset(heap, 'z', 31);
    heap[31] = 0;
    heap[5] = 0;
    printf("heap %s\n", heap);
    free(heap);
    struct point pts[3] = { { 1, 2 }, { 3, 4 }, { 5, 6 } };
    struct point *pp = pts;
    pp += 2;
    printf("ptr diff %ld %d\n", (long)(pp - pts), pp[-1].y);
    return (total + sum) % 100;
}
