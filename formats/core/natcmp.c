/* natcmp.c - natural order of names: runs of digits compare as numbers, the rest byte by byte. */
#include "natcmp.h"

#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Compare the digit runs at *a and *b by value (any length: no overflow) and step past them. */
static int number_cmp(const char **a, const char **b)
{
	const char *x = *a, *y = *b;
	while (*x == '0' && is_digit(x[1]))
		x++;
	while (*y == '0' && is_digit(y[1]))
		y++;
	size_t nx = 0, ny = 0;
	while (is_digit(x[nx]))
		nx++;
	while (is_digit(y[ny]))
		ny++;
	int c = nx != ny ? (nx < ny ? -1 : 1) : memcmp(x, y, nx);
	*a = x + nx;
	*b = y + ny;
	return c;
}

int xp_natcmp(const char *a, const char *b)
{
	const char *x = a, *y = b;
	while (*x && *y) {
		if (is_digit(*x) && is_digit(*y)) {
			int c = number_cmp(&x, &y);
			if (c)
				return c;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		x++;
		y++;
	}
	if (*x || *y)
		return *x ? 1 : -1;
	return strcmp(a, b);
}
