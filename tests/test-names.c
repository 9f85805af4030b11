/* SPDX-License-Identifier: MIT */
/*
 * nm_shorten() (lib/profile/names.c), which hwprof report --width uses:
 * a name that fits is kept; one that does not loses its parameter list,
 * then its template arguments, then its start, in that order and only as
 * far as needed; operator names are not taken for lists.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "../lib/profile/names.h"

static void fits(const char *name, size_t max, const char *want)
{
	char *got = nm_shorten(name, max);

	T_CHECK(got && !strcmp(got, want), "%s (%zu): got '%s', want '%s'", name, max,
		got ? got : "(null)", want);
	T_CHECK(!got || strlen(got) <= (max < 8 ? 8 : max) || !strcmp(got, name),
		"'%s' longer than %zu", got, max);
	free(got);
}

int main(void)
{
	static const char vec[] =
		"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
		"(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
		"int const&)";
	char big[101];

	fits("f(int)", 40, "f(int)");
	fits("shapes::Widget<unsigned long>::spin(long)", 41,
	     "shapes::Widget<unsigned long>::spin(long)");
	/* the parameters first, and only they when that is enough */
	fits("shapes::Widget<unsigned long>::spin(long)", 40, "shapes::Widget<unsigned long>::spin()");
	fits("ns::f(int) const", 13, "ns::f() const");
	fits("ns::f(int) const", 12, "...f() const");
	/* then the template arguments, every top-level list */
	fits(vec, 60, "std::vector<...>::_M_realloc_insert<...>()");
	/* then the start, so that the innermost name stays */
	fits(vec, 30, "...>::_M_realloc_insert<...>()");
	/* operators are names, not lists */
	fits("std::operator<<(std::ostream&, int)", 20, "std::operator<<()");
	fits("std::function<void (int)>::operator()(int) const", 45,
	     "std::function<void (int)>::operator()() const");
	fits("std::function<void (int)>::operator()(int) const", 40,
	     "std::function<...>::operator()() const");
	fits("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
	     40, "std::ostream& std::operator<< <...>()");
	fits("a::operator->(int)", 16, "a::operator->()");
	fits("a::operator<(a const&, a const&)", 16, "a::operator<()");
	memset(big, 'a', 100);
	big[100] = 0;
	fits(big, 20, "...aaaaaaaaaaaaaaaaa");
	fits(big, 3, "...aaaaa");		/* at least 8 */
	return t_done("names");
}
