package themes

// darkTheme is the default palette for dark terminals: soft blue accent,
// warm user colour, readable greys.
func darkTheme() Theme {
	return Theme{
		Name: "dark", Dark: true,
		Fg: hex("#d0d4e0"), Muted: hex("#8b90a6"), Faint: hex("#5c6178"), Accent: hex("#7aa2f7"),
		User: hex("#e0af68"), Assistant: hex("#d0d4e0"), Reasoning: hex("#8b90a6"), Tool: hex("#7dcfff"),
		Success: hex("#9ece6a"), Error: hex("#f7768e"), Warning: hex("#e0af68"), Info: hex("#7aa2f7"),
		Border: hex("#3b4261"), BorderFocus: hex("#7aa2f7"), Selection: hex("#2e3c64"),
		CodeFg: hex("#ff9e64"), CodeBg: hex("#24283b"),
		Keyword: hex("#bb9af7"), String: hex("#9ece6a"), Number: hex("#ff9e64"), Comment: hex("#5c6178"),
		Function: hex("#7aa2f7"), Type: hex("#2ac3de"), Operator: hex("#89ddff"),
	}
}

// lightTheme is the default palette for light terminals.
func lightTheme() Theme {
	return Theme{
		Name: "light", Dark: false,
		Fg: hex("#24292f"), Muted: hex("#57606a"), Faint: hex("#8c959f"), Accent: hex("#0969da"),
		User: hex("#8250df"), Assistant: hex("#24292f"), Reasoning: hex("#6e7781"), Tool: hex("#0550ae"),
		Success: hex("#1a7f37"), Error: hex("#cf222e"), Warning: hex("#9a6700"), Info: hex("#0969da"),
		Border: hex("#d0d7de"), BorderFocus: hex("#0969da"), Selection: hex("#ddf4ff"),
		CodeFg: hex("#953800"), CodeBg: hex("#eff2f5"),
		Keyword: hex("#cf222e"), String: hex("#0a3069"), Number: hex("#0550ae"), Comment: hex("#6e7781"),
		Function: hex("#8250df"), Type: hex("#953800"), Operator: hex("#24292f"),
	}
}

// highContrastTheme uses saturated colours on black and never relies on
// faint greys, for low-vision users and washed-out projectors.
func highContrastTheme() Theme {
	return Theme{
		Name: "high-contrast", Dark: true,
		Fg: hex("#ffffff"), Muted: hex("#e4e4e4"), Faint: hex("#c6c6c6"), Accent: hex("#00ffff"),
		User: hex("#ffff00"), Assistant: hex("#ffffff"), Reasoning: hex("#e4e4e4"), Tool: hex("#00ffff"),
		Success: hex("#00ff5f"), Error: hex("#ff5f5f"), Warning: hex("#ffff00"), Info: hex("#5fd7ff"),
		Border: hex("#ffffff"), BorderFocus: hex("#00ffff"), Selection: hex("#0000d7"),
		CodeFg: hex("#ffff87"), CodeBg: hex("#000000"),
		Keyword: hex("#ff87ff"), String: hex("#87ff87"), Number: hex("#ffd700"), Comment: hex("#d0d0d0"),
		Function: hex("#5fd7ff"), Type: hex("#ffaf00"), Operator: hex("#ffffff"),
	}
}

// solarizedTheme is the Solarized dark palette (Ethan Schoonover's sixteen
// colours) mapped onto the semantic tokens.
func solarizedTheme() Theme {
	const (
		base03 = "#002b36"
		base02 = "#073642"
		base01 = "#586e75"
		base0  = "#839496"
		base1  = "#93a1a1"
		yellow = "#b58900"
		orange = "#cb4b16"
		red    = "#dc322f"
		violet = "#6c71c4"
		blue   = "#268bd2"
		cyan   = "#2aa198"
		green  = "#859900"
	)
	return Theme{
		Name: "solarized", Dark: true,
		Fg: hex(base1), Muted: hex(base0), Faint: hex(base01), Accent: hex(blue),
		User: hex(yellow), Assistant: hex(base1), Reasoning: hex(base01), Tool: hex(cyan),
		Success: hex(green), Error: hex(red), Warning: hex(orange), Info: hex(blue),
		Border: hex(base02), BorderFocus: hex(blue), Selection: hex(base02),
		CodeFg: hex(orange), CodeBg: hex(base03),
		Keyword: hex(green), String: hex(cyan), Number: hex(violet), Comment: hex(base01),
		Function: hex(blue), Type: hex(yellow), Operator: hex(base0),
	}
}
