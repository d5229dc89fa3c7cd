/* Placeholder until the int instruction family lands: every instruction
 * of the family is reported as unsupported. */
#include "exec.h"

mb_status decode_int(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    (void)x;
    return decode_unsupported(dc, insn, "the executor does not implement this instruction yet");
}
