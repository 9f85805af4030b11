// SPDX-License-Identifier: MIT
// A C++ program for hwprof report's tests: its time is in a member of a
// class template in a namespace, whose symbol is mangled.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace shapes {
#if defined(__GNUC__) && !defined(__clang__)
#define NOCLONE __attribute__((noinline, noclone))	/* no .isra clone */
#else
#define NOCLONE __attribute__((noinline))
#endif

template <typename T> struct Widget {
	T seed;
	NOCLONE T spin(long n);
};

template <typename T> T Widget<T>::spin(long n)
{
	T x = seed;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
} // namespace shapes

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::strtol(argv[1], nullptr, 0) : 300000000L;
	shapes::Widget<uint64_t> w{7};

	std::printf("%llu\n", (unsigned long long)w.spin(n));
	return 0;
}
