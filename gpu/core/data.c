/* Inputs, the host reference and the comparison. Inputs are integers
 * 1..range, a hash of (rank, element): never zero, different per rank and
 * per index. The range is chosen per dtype and rank count so that every
 * partial sum, in any order, is an exact integer of the dtype; the
 * reference (gx_expected in gx.h) is then exact too, and a documented
 * tolerance (one unit in the last place for half and bfloat16, none for
 * float) only matters to callers that widen the range. */
#include "gpu/core/gx.h"

#include <math.h>
#include <string.h>

uint32_t gx_input_range(enum gx_dtype d, int nranks)
{
	uint64_t exact = d == GX_F32 ? (1u << 24) : d == GX_F16 ? (1u << 11) : (1u << 8);
	uint32_t range = 1024;

	while (range > 1 && (uint64_t)range * (uint64_t)nranks > exact)
		range /= 2;
	return range;
}

double gx_tolerance(enum gx_dtype d)
{
	return d == GX_F32 ? 0.0 : d == GX_F16 ? 1.0 / 1024 : 1.0 / 128;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

uint16_t gx_f32_to_bf16(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN stays NaN */
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

float gx_bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

uint16_t gx_f32_to_f16(float f)
{
	uint32_t u = f32_bits(f), sign = (u >> 16) & 0x8000u;
	uint32_t a = u & 0x7fffffffu;

	if (a > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (a < 0x38800000u) { /* below 2^-14: subnormal or zero */
		float v = bits_f32(a) * 16777216.0f; /* x 2^24: units of 2^-24 */
		uint32_t m = (uint32_t)lrintf(v);     /* round to nearest even */

		return (uint16_t)(sign | m);
	}
	uint32_t e = ((a >> 23) - 127 + 15), mant = a & 0x7fffffu;
	uint32_t h = (e << 10) | (mant >> 13), rest = mant & 0x1fffu;

	if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

float gx_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0)
		return (sign ? -1.0f : 1.0f) * (float)m / 16777216.0f;
	if (e == 31)
		return bits_f32(sign | 0x7f800000u | (m << 13));
	return bits_f32(sign | ((e - 15 + 127) << 23) | (m << 13));
}

float gx_load_elem(const void *base, uint64_t i, enum gx_dtype d)
{
	if (d == GX_F32)
		return ((const float *)base)[i];
	uint16_t h = ((const uint16_t *)base)[i];

	return d == GX_F16 ? gx_f16_to_f32(h) : gx_bf16_to_f32(h);
}

void gx_store_elem(void *base, uint64_t i, enum gx_dtype d, float v)
{
	if (d == GX_F32)
		((float *)base)[i] = v;
	else if (d == GX_F16)
		((uint16_t *)base)[i] = gx_f32_to_f16(v);
	else
		((uint16_t *)base)[i] = gx_f32_to_bf16(v);
}

void gx_fill_input(void *buf, uint64_t first, uint64_t n, int r, enum gx_dtype d, uint32_t range)
{
	for (uint64_t k = 0; k < n; k++)
		gx_store_elem(buf, k, d, (float)gx_input_value(r, first + k, range));
}

uint64_t gx_count_wrong(const void *buf, uint64_t first, uint64_t n, const struct gx_sched *s,
			uint64_t elems, int r, enum gx_dtype d, uint32_t range)
{
	uint64_t bf[GX_MAX_RANKS + 1], wrong = 0;
	double tol = gx_tolerance(d);

	for (uint32_t b = 0; b <= s->nblocks && b <= GX_MAX_RANKS; b++)
		bf[b] = gx_block_first(s, elems, b);
	for (uint64_t k = 0; k < n; k++) {
		double want;
		float got = gx_load_elem(buf, k, d);

		if (!gx_expected(s->coll, s->nranks, s->root, s->peer, r, first + k, bf,
				 s->nblocks, range, &want))
			continue;
		if (!(fabs((double)got - want) <= tol * fabs(want)))
			wrong++;
	}
	return wrong;
}
