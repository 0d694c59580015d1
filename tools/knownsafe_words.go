package tools

// The expansions inside a command line's words, judged for
// KnownSafeCommand: substitutions, parameters, arithmetic and [[ ]].

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// words judges the expansions inside each word.
func (j *safeJudge) words(ws []*syntax.Word) string {
	for _, w := range ws {
		if why := j.word(w); why != "" {
			return why
		}
	}
	return ""
}

// word judges what expanding w runs: its command and process
// substitutions are judged as commands; expansions that evaluate a value
// as code (arithmetic on variables, subscripts, ${!x}, ${x@P}) or assign
// a variable are not known safe.
func (j *safeJudge) word(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	return j.parts(w.Parts)
}

func (j *safeJudge) parts(ps []syntax.WordPart) string {
	for _, p := range ps {
		var why string
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.ExtGlob:
			// bash reads @(…) as a glob only with extglob set; without
			// it, as a syntax error.
			why = "an extended glob, which bash reads only with extglob set"
		case *syntax.DblQuoted:
			why = j.parts(p.Parts)
		case *syntax.ParamExp:
			why = j.param(p)
		case *syntax.CmdSubst:
			if p.TempFile || p.ReplyVar {
				why = "a command substitution the classifier does not know"
			} else {
				why = j.stmts(p.Stmts)
			}
		case *syntax.ProcSubst:
			why = j.stmts(p.Stmts)
		case *syntax.ArithmExp:
			if !numericArith(p.X) {
				why = "arithmetic on variables ($(( … ))), which can run a command substitution held in a value"
			}
		default:
			why = "a word the classifier does not know"
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// param judges a parameter expansion.
func (j *safeJudge) param(p *syntax.ParamExp) string {
	switch {
	case p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet:
		return "a parameter expansion the classifier does not know"
	case p.Excl && p.Names == 0:
		return "an indirect expansion ${!x}, which can evaluate a subscript"
	case p.Index != nil && !allElements(p.Index):
		return "an array subscript, which is arithmetic on the shell's values"
	case p.Slice != nil && !(numericArith(p.Slice.Offset) && (p.Slice.Length == nil || numericArith(p.Slice.Length))):
		return "a substring expansion with arithmetic on variables"
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return "an assigning expansion ${x:=…}"
		case syntax.OtherParamOps:
			return "a ${x@…} transformation, which can expand a value as a prompt"
		}
		if why := j.word(p.Exp.Word); why != "" {
			return why
		}
	}
	if p.Repl != nil {
		if why := j.word(p.Repl.Orig); why != "" {
			return why
		}
		return j.word(p.Repl.With)
	}
	return ""
}

// allElements reports whether the subscript is [@] or [*].
func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && (l.Value == "@" || l.Value == "*")
}

// numericArith reports whether an arithmetic expression holds only
// numbers and special parameters ($#, $?, $$, $!): no variable whose
// value bash would evaluate as an expression in turn.
func numericArith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return numericWord(x)
	case *syntax.BinaryArithm:
		return numericArith(x.X) && numericArith(x.Y)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && numericArith(x.X)
	case *syntax.ParenArithm:
		return numericArith(x.X)
	}
	return false
}

// numericWord reports whether w is made of digits and special
// parameters only.
func numericWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Trim(p.Value, "0123456789") != "" {
				return false
			}
		case *syntax.ParamExp:
			if !p.Short || p.Param == nil || !strings.Contains("#?$!", p.Param.Value) || len(p.Param.Value) != 1 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// test judges a [[ … ]] expression: its words, no -v or -R (they
// evaluate a subscript), and numbers only around -eq and the other
// arithmetic comparisons (their operands are arithmetic).
func (j *safeJudge) test(x syntax.TestExpr) string {
	switch x := x.(type) {
	case *syntax.Word:
		return j.word(x)
	case *syntax.ParenTest:
		return j.test(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			return "[[ -v ]], which evaluates a subscript"
		}
		return j.test(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			l, lok := x.X.(*syntax.Word)
			r, rok := x.Y.(*syntax.Word)
			if !lok || !rok || !numericWord(l) || !numericWord(r) {
				return "an arithmetic comparison in [[ ]] on variables"
			}
			return ""
		}
		if why := j.test(x.X); why != "" {
			return why
		}
		return j.test(x.Y)
	}
	return "a test expression the classifier does not know"
}
