package markdown

import "testing"

func TestLive(t *testing.T) {
	t.Parallel()
	live := []string{
		"see www.evil-login.example now",
		"T1-www.evil.example",
		"go to https://evil.example/x",
		"x:https://evil.example",
		"write to a@evil.example",
		"ping @octocat",
		"fixes #12",
		"fixes GH-12",
		"commit deadbeef12",
		"[click](https://evil.example)",
		"![p](//ev.il/p.png)",
		"<img src=x>",
		"<details>\n\nx\n</details>",
		"<https://evil.example>",
		"| a | www.evil.example |\n|---|---|\n| b | c |",
		"**www.evil.example**",
	}
	for _, md := range live {
		if got := Live(md); len(got) == 0 {
			t.Errorf("Live(%q) found nothing", md)
		}
	}
	inert := []string{
		"plain text, T1 and LOGIN",
		"`www.evil.example` and `https://evil.example`",
		"ping @\u200boctocat, fixes #\u200b12",
		"``` \n@a https://x.example\n```",
		"    indented www.evil.example",
		"<sub>our footer</sub>",
		"a \\[link\\]\\(x\\)",
		"| a | `www.evil.example` |\n|---|---|\n| b | `deadbeef12` |",
		"T1234567 and abc_1234567",
	}
	for _, md := range inert {
		if got := Live(md); len(got) != 0 {
			t.Errorf("Live(%q) = %v, want nothing", md, got)
		}
	}
}
