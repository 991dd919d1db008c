/* A small bytecode VM with a big switch dispatch loop. */
#include <stdio.h>

enum op {
    OP_HALT, OP_PUSH, OP_POP, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG, OP_DUP,
    OP_SWAP, OP_OVER, OP_JMP, OP_JZ, OP_JNZ, OP_LT, OP_EQ, OP_LOAD, OP_STORE, OP_PRINT,
    OP_INC, OP_DEC, OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR, OP_CALL, OP_RET, OP_NOP
};

struct vm {
    long stack[256];
    int sp;
    long vars[16];
    int frames[32];
    int fp;
    long steps;
};

static long run(struct vm *m, const int *code, int len) {
    int pc = 0;
    for (;;) {
        if (pc < 0 || pc >= len) return -1;
        m->steps++;
        int op = code[pc++];
        long a, b;
        switch (op) {
        case OP_HALT: return m->sp > 0 ? m->stack[m->sp - 1] : 0;
        case OP_PUSH: m->stack[m->sp++] = code[pc++]; break;
        case OP_POP: m->sp--; break;
        case OP_ADD: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a + b; break;
        case OP_SUB: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a - b; break;
        case OP_MUL: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a * b; break;
        case OP_DIV: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a / b : 0; break;
        case OP_MOD: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a % b : 0; break;
        case OP_NEG: m->stack[m->sp - 1] = -m->stack[m->sp - 1]; break;
        case OP_DUP: m->stack[m->sp] = m->stack[m->sp - 1]; m->sp++; break;
        case OP_SWAP: a = m->stack[m->sp - 1]; m->stack[m->sp - 1] = m->stack[m->sp - 2]; m->stack[m->sp - 2] = a; break;
        case OP_OVER: m->stack[m->sp] = m->stack[m->sp - 2]; m->sp++; break;
        case OP_JMP: pc = code[pc]; break;
        case OP_JZ: a = m->stack[--m->sp]; pc = a == 0 ? code[pc] : pc + 1; break;
        case OP_JNZ: a = m->stack[--m->sp]; pc = a != 0 ? code[pc] : pc + 1; break;
        case OP_LT: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a < b; break;
        case OP_EQ: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a == b; break;
        case OP_LOAD: m->stack[m->sp++] = m->vars[code[pc++] & 15]; break;
        case OP_STORE: m->vars[code[pc++] & 15] = m->stack[--m->sp]; break;
        case OP_PRINT: printf("out %ld\n", m->stack[--m->sp]); break;
        case OP_INC: m->stack[m->sp - 1]++; break;
        case OP_DEC: m->stack[m->sp - 1]--; break;
        case OP_AND: b = m->stack[--m->sp]; m->stack[m->sp - 1] &= b; break;
        case OP_OR: b = m->stack[--m->sp]; m->stack[m->sp - 1] |= b; break;
        case OP_XOR: b = m->stack[--m->sp]; m->stack[m->sp - 1] ^= b; break;
        case OP_SHL: b = m->stack[--m->sp]; m->stack[m->sp - 1] <<= b; break;
        case OP_SHR: b = m->stack[--m->sp]; m->stack[m->sp - 1] >>= b; break;
        case OP_CALL: m->frames[m->fp++] = pc + 1; pc = code[pc]; break;
        case OP_RET: pc = m->frames[--m->fp]; break;
        case OP_NOP: break;
        default: printf("bad op %d at %d\n", op, pc - 1); return -2;
        }
        if (m->sp < 0 || m->sp >= 250) return -3;
    }
}

/* Sum of i*i for i in [0, 100), then factorial of 10 via a subroutine. */
static const int program[] = {
    OP_PUSH, 0, OP_STORE, 0,          /* i = 0 */
    OP_PUSH, 0, OP_STORE, 1,          /* s = 0 */
    OP_LOAD, 0, OP_PUSH, 100, OP_LT,  /* 8: i < 100 */
    OP_JZ, 31,
    OP_LOAD, 0, OP_DUP, OP_MUL, OP_LOAD, 1, OP_ADD, OP_STORE, 1,
    OP_LOAD, 0, OP_INC, OP_STORE, 0,
    OP_JMP, 8,
    OP_LOAD, 1, OP_PRINT,             /* 31 */
    OP_PUSH, 10, OP_CALL, 44,
    OP_PRINT,
    OP_PUSH, 7, OP_HALT, OP_NOP,
    OP_NOP,
    /* 44: fact(n) iterative: acc = 1; while n: acc *= n; n-- */
    OP_STORE, 2, OP_PUSH, 1, OP_STORE, 3,
    OP_LOAD, 2, OP_JZ, 68,
    OP_LOAD, 3, OP_LOAD, 2, OP_MUL, OP_STORE, 3,
    OP_LOAD, 2, OP_DEC, OP_STORE, 2, OP_JMP, 50,
    OP_LOAD, 3, OP_RET,               /* 68 */
};

int main(void) {
    static struct vm m;
    long r = run(&m, program, (int)(sizeof program / sizeof program[0]));
    printf("result %ld steps %ld sp %d\n", r, m.steps, m.sp);
    int bad[] = { OP_PUSH, 1, 99 };
    struct vm m2 = { { 0 }, 0, { 0 }, { 0 }, 0, 0 };
    printf("bad %ld\n", run(&m2, bad, 3));
    int bits[] = { OP_PUSH, 0xF0, OP_PUSH, 0x3C, OP_XOR, OP_PUSH, 2, OP_SHL, OP_PUSH, 5, OP_OR, OP_PRINT, OP_HALT };
    struct vm m3 = { { 0 }, 0, { 0 }, { 0 }, 0, 0 };
    run(&m3, bits, 13);
    return (int)(r + m.steps % 50);
}
