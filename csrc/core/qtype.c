/* The rows of SIMDOPS_QTYPES (core/qtype.h). */
#include "core/qtype.h"

const simdops_qtype_row simdops_qtype_rows[SIMDOPS_QT_COUNT] = {
#define SIMDOPS_X_QT_ROW(NAME, tag, onnx, bits, kind, lo, hi, qop, dqop, name)                    \
    {name, onnx, bits, kind, lo, hi, qop, dqop},
    SIMDOPS_QTYPES(SIMDOPS_X_QT_ROW)
#undef SIMDOPS_X_QT_ROW
};

int simdops_qtype_of_onnx(int32_t onnx)
{
    for (int i = 0; i < SIMDOPS_QT_COUNT; i++)
        if (simdops_qtype_rows[i].onnx == onnx)
            return i;
    return -1;
}
