// The translation unit that builds the test suites' shared precompiled header (tests/CMakeLists.txt).
