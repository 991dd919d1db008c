// Tables clang fills with addresses the importer must evaluate: a computed-goto dispatch
// table (`blockaddress` in a global, as in lua's `luaV_execute`), a read-only one indexed by
// a constant (SCCP must read the block address, not fold it to null), and a `switch`
// returning string literals, which clang -O2 turns into a relative lookup table
// (`trunc (sub (ptrtoint @str, ptrtoint @table))` read by `llvm.load.relative`).
#include <stdio.h>

__attribute__((noinline)) static int run(const unsigned char *code) {
  static void *dispatch[] = {&&op_push, &&op_add, &&op_dup, &&op_halt};
  int stack[16], sp = 0, pc = 0;
#define NEXT goto *dispatch[code[pc++]]
  NEXT;
op_push:
  stack[sp++] = code[pc++];
  NEXT;
op_add:
  sp--;
  stack[sp - 1] += stack[sp];
  NEXT;
op_dup:
  stack[sp] = stack[sp - 1];
  sp++;
  NEXT;
op_halt:
  return stack[sp - 1];
#undef NEXT
}

__attribute__((noinline)) static int fixed(int x) {
  static void *const jump[] = {&&first, &&second};
  goto *jump[1];
first:
  return x + 1;
second:
  return x + 2;
}

__attribute__((noinline)) static const char *name_of(int kind) {
  switch (kind) {
  case 0: return "nil";
  case 1: return "boolean";
  case 2: return "number";
  case 3: return "string";
  case 4: return "table";
  case 5: return "function";
  default: return "no value";
  }
}

int main(void) {
  static const unsigned char program[] = {0, 20, 2, 1, 0, 2, 1, 3};
  int total = run(program) + fixed(40);
  for (int k = 0; k < 7; k++)
    printf("%d %s\n", k, name_of(k));
  printf("total %d\n", total);
  return total & 0x7f;
}
