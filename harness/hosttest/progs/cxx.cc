// SPDX-License-Identifier: GPL-2.0
// C++ test program for the SFrame host tests: exceptions, templates,
// virtual calls, destructors run during unwinding.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Rect : Shape {
	double w, h;
	Rect(double w_, double h_) : w(w_), h(h_) {}
	double area() const override
	{
		if (w < 0 || h < 0)
			throw std::invalid_argument("negative size");
		return w * h;
	}
};

template <typename T> __attribute__((noinline)) T accumulate_checked(const std::vector<T> &v)
{
	T s{};
	for (const auto &x : v) {
		if (x > T(1000))
			throw std::out_of_range("too big: " + std::to_string(x));
		s += x;
	}
	return s;
}

struct Guard {
	int &c;
	explicit Guard(int &c_) : c(c_) { ++c; }
	~Guard() { --c; }
};

__attribute__((noinline)) static int thrower(int depth, int &guards)
{
	Guard g(guards);
	if (!depth)
		throw std::runtime_error("bottom");
	return thrower(depth - 1, guards) + 1;
}

int main(int argc, char **)
{
	std::vector<std::unique_ptr<Shape>> shapes;
	std::map<std::string, double> areas;
	int guards = 0, caught = 0;

	for (int i = 0; i < 5; i++)
		shapes.emplace_back(new Rect(i - argc, i + 1));
	for (auto &s : shapes) {
		try {
			areas[std::to_string(areas.size())] = s->area();
		} catch (const std::exception &e) {
			caught++;
		}
	}
	try {
		thrower(10 + argc, guards);
	} catch (const std::runtime_error &) {
		caught++;
	}
	try {
		accumulate_checked(std::vector<int>{1, 2, 3000});
	} catch (const std::out_of_range &) {
		caught++;
	}
	std::printf("%zu %d %d %g\n", areas.size(), caught, guards,
		    accumulate_checked(std::vector<double>{1.5, 2.5}));
	return 0;
}
