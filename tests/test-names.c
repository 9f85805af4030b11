/* SPDX-License-Identifier: MIT */
/*
 * nm_shorten() (lib/profile/names.c), which hwprof report --width uses:
 * a name that fits is kept; one that does not loses its parameter list,
 * then its template arguments, then its start, in that order and only as
 * far as needed; operator names are not taken for lists. nm_bare(), by
 * which annotate and --callers find a name typed without its return type,
 * parameters or template arguments.
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

static void bare(const char *name, const char *want, const char *want_nt)
{
	char *a = nm_bare(name, 1), *b = nm_bare(name, 0);

	T_CHECK(a && !strcmp(a, want), "%s: got '%s', want '%s'", name, a ? a : "(null)",
		want);
	T_CHECK(b && !strcmp(b, want_nt), "%s (no templates): got '%s', want '%s'", name,
		b ? b : "(null)", want_nt);
	free(a);
	free(b);
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
	fits("shapes::Widget<unsigned long>::spin(long)", 40,
	     "shapes::Widget<unsigned long>::spin()");
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
	fits(big, 3, "...aaaaa"); /* at least 8 */
	bare("void std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>(int*, int*, long, __gnu_cxx::__ops::_Iter_less_iter)",
	     "std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>",
	     "std::__introsort_loop");
	bare("ns::f(int) const", "ns::f", "ns::f");
	bare("main", "main", "main");
	bare("(anonymous namespace)::g(char const*)", "(anonymous namespace)::g",
	     "(anonymous namespace)::g");
	bare("operator new(unsigned long)", "operator new", "operator new");
	bare("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
	     "std::operator<< <std::char_traits<char> >", "std::operator<<");
	bare("shapes::Widget<unsigned long>::spin(long)",
	     "shapes::Widget<unsigned long>::spin", "shapes::Widget::spin");
	/* a lambda's, a local class's, a clone's, a namespace's parentheses */
	bare("foo()::{lambda()#1}::operator()() const", "foo()::{lambda()#1}::operator()",
	     "foo()::{lambda()#1}::operator()");
	bare("outer()::Local::m(int)", "outer()::Local::m", "outer()::Local::m");
	bare("foo() [clone .cold]", "foo", "foo");
	bare("(anonymous namespace)::bar", "(anonymous namespace)::bar",
	     "(anonymous namespace)::bar");
	fits("foo() [clone .cold]", 10, "... .cold]");
	return t_done("names");
}
