// The output decisions made once for every command: colour (src/cli/output_policy.h) and the one
// quoting path of the CSV and Markdown writers (src/report/cell_quote.h).
#include <gtest/gtest.h>

#include "../../src/report/cell_quote.h"
#include "output_policy.h"

using bwacct::cli::colour_wanted;
using bwacct::detail::csv_quote;
using bwacct::detail::md_cell;

TEST(Colour, OnlyOnATerminalThatShowsIt) {
    EXPECT_TRUE(colour_wanted(true, nullptr, "xterm-256color", false));
    EXPECT_FALSE(colour_wanted(false, nullptr, "xterm", false));  // not a terminal
    EXPECT_FALSE(colour_wanted(true, nullptr, "dumb", false));    // TERM=dumb (issue 11, defect 18)
    EXPECT_FALSE(colour_wanted(true, nullptr, nullptr, false));   // TERM unset, as grep decides
    EXPECT_FALSE(colour_wanted(true, nullptr, "", false));
    EXPECT_FALSE(colour_wanted(true, "1", "xterm", false));     // NO_COLOR
    EXPECT_TRUE(colour_wanted(true, "", "xterm", false));       // NO_COLOR="" counts as unset (no-color.org)
    EXPECT_FALSE(colour_wanted(true, nullptr, "xterm", true));  // under mpirun
}

TEST(CellQuote, CsvFollowsRfc4180) {
    EXPECT_EQ(csv_quote("plain"), "plain");
    EXPECT_EQ(csv_quote(""), "");
    EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");  // each inner quote doubled
    EXPECT_EQ(csv_quote("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_quote("cr\rhere"), "\"cr\rhere\"");
    EXPECT_EQ(csv_quote("a|b"), "a|b");  // a pipe is nothing to CSV
}

TEST(CellQuote, MarkdownKeepsOneCell) {
    EXPECT_EQ(md_cell("plain"), "plain");
    EXPECT_EQ(md_cell("a|b"), "a\\|b");
    EXPECT_EQ(md_cell("back\\slash"), "back\\\\slash");
    EXPECT_EQ(md_cell("one\ntwo\r\nthree\rfour"), "one<br>two<br>three<br>four");
    EXPECT_EQ(md_cell("a, \"b\""), "a, \"b\"");  // commas and quotes are nothing to Markdown
}
