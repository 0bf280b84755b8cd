package manifest

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

var long1023 = "file " + strings.Repeat("n", 1023-len("file  seq 1 type b")) + " seq 1 type b"

type errCase struct {
	name string
	in   string
	msg  string
	line int
	text string
}

var errCases = []errCase{
	{"empty file", "", msgEmpty, 0, ""},
	{"no final newline", "file a seq 1 type b", msgTooLong, 0, ""},
	{"no final newline after good line", "file a seq 1 type b\nfile b seq 1 type i", msgTooLong, 0, ""},
	{"line of 1024 bytes plus newline", long1023 + "x\n", msgTooLong, 0, ""},
	{"NUL before newline", "file a\x00 seq 1 type b\n", msgTooLong, 0, ""},
	{"blank line", "file a seq 1 type b\n\nfile b seq 1 type i\n", msgInvalid, 2, ""},
	{"whitespace-only line", "# c\n \t\r\n", msgInvalid, 2, ""},
	{"only newline", "\n", msgInvalid, 1, ""},
	{"too few tokens", "file a seq 1 type\n", msgInvalid, 1, "file a seq 1 type"},
	{"odd tokens", "file a seq 1 type b x\n", msgInvalid, 1, "file a seq 1 type b x"},
	{"unbalanced quote", "file \"a seq 1 type b\n", msgInvalid, 1, "file \"a seq 1 type b"},
	{"quote followed by char", "file \"a\"x seq 1 type b\n", msgInvalid, 1, "file \"a\"x seq 1 type b"},
	{"seq zero", "file a seq 1 type b\nfile x seq 0 type i\n", msgInvalid, 2, "file x seq 0 type i"},
	{"seq garbage", "file a seq abc type b\n", msgInvalid, 1, "file a seq abc type b"},
	{"missing file key", "name a seq 1 type b\n", msgInvalid, 1, "name a seq 1 type b"},
	{"missing seq key", "file a sequence 1 type b\n", msgInvalid, 1, "file a sequence 1 type b"},
	{"empty type", "file a seq 1 type \"\"\n", msgInvalid, 1, "file a seq 1 type \"\""},
	{"path slash", "file dir/a seq 1 type b\n", msgPath, 1, "file dir/a seq 1 type b"},
	{"path backslash", "file 'a\\b' seq 1 type b\n", msgPath, 1, "file 'a\\b' seq 1 type b"},
	{"path before argc check wins over later keys", "file ../a seq 0 type z\n", msgPath, 1, "file ../a seq 0 type z"},
	{"duplicate base", "file a seq 1 type b\nfile b seq 2 type b\n", msgDuplicate, 2, "file b seq 2 type b"},
	{"incr not increasing", "file a seq 2 type i\nfile b seq 2 type i\n", msgNonMonotonic, 2, "file b seq 2 type i"},
	{"incr decreasing", "file a seq 5 type i\nfile b seq 3 type i\n", msgNonMonotonic, 2, "file b seq 3 type i"},
	{"incr negative", "file a seq -1 type i\n", msgNonMonotonic, 1, "file a seq -1 type i"},
	{"unknown type", "file a seq 1 type x\n", msgUnknownType, 1, "file a seq 1 type x"},
	{"type uppercase B", "file a seq 1 type B\n", msgUnknownType, 1, "file a seq 1 type B"},
	{"CRLF trimmed in text", "# comment\r\nfile a seq 1 type q\r\n", msgUnknownType, 2, "file a seq 1 type q"},
	{"long comment continues as a line", "#" + strings.Repeat("c", 1100) + "\n", msgInvalid, 2, strings.Repeat("c", 77)},
	{"unicode fold is not ASCII fold", "file a ſeq 1 type b\n", msgInvalid, 1, "file a ſeq 1 type b"},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tc.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %+v, %v; want ParseError %q", m, err, tc.msg)
			}
			if m != nil {
				t.Fatal("non-nil manifest with error")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatal("error does not wrap ErrCorrupt")
			}
			if pe.Msg != tc.msg || pe.Line != tc.line || pe.Text != tc.text {
				t.Fatalf("got {Line:%d Text:%q Msg:%q}, want {Line:%d Text:%q Msg:%q}",
					pe.Line, pe.Text, pe.Msg, tc.line, tc.text, tc.msg)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Error() = %q lacks the message", err.Error())
			}
		})
	}
}

type okCase struct {
	name string
	in   string
	want *Manifest
}

func base(name string, seq int64) *File { return &File{name, seq, Base} }

var okCases = []okCase{
	{"comments only", "# hello\n#world\n", &Manifest{}},
	{"last comment without newline", "file a seq 1 type b\n# tail", &Manifest{Base: base("a", 1), CurrBaseSeq: 1}},
	{"line of exactly 1023 bytes plus newline", long1023 + "\n",
		&Manifest{Base: base(strings.Repeat("n", 1023-len("file  seq 1 type b")), 1), CurrBaseSeq: 1}},
	{"CRLF", "file a seq 1 type b\r\nfile i seq 1 type i\r\n",
		&Manifest{Base: base("a", 1), Incrs: []File{{"i", 1, Incr}}, CurrBaseSeq: 1, CurrIncrSeq: 1}},
	{"keys case-insensitive, any order", "TYPE b SEQ 4 FiLe a\n", &Manifest{Base: base("a", 4), CurrBaseSeq: 4}},
	{"unknown keys ignored", "file a seq 1 type b foo bar\n", &Manifest{Base: base("a", 1), CurrBaseSeq: 1}},
	{"last key wins", "file x seq 9 type i file a seq 1 type b\n", &Manifest{Base: base("a", 1), CurrBaseSeq: 1}},
	{"type uses first char", "file a seq 1 type base\nfile i seq 2 type incr\nfile h seq 3 type hist\n",
		&Manifest{Base: base("a", 1), History: []File{{"h", 3, History}}, Incrs: []File{{"i", 2, Incr}}, CurrBaseSeq: 1, CurrIncrSeq: 2}},
	{"atoll seq", "file a seq 12abc type b\nfile i seq +3 type i\n",
		&Manifest{Base: base("a", 12), Incrs: []File{{"i", 3, Incr}}, CurrBaseSeq: 12, CurrIncrSeq: 3}},
	{"negative base and history seq", "file a seq -2 type b\nfile h seq -5 type h\n",
		&Manifest{Base: base("a", -2), History: []File{{"h", -5, History}}, CurrBaseSeq: -2}},
	{"base after incrs", "file i seq 1 type i\nfile j seq 7 type i\nfile a seq 3 type b\n",
		&Manifest{Base: base("a", 3), Incrs: []File{{"i", 1, Incr}, {"j", 7, Incr}}, CurrBaseSeq: 3, CurrIncrSeq: 7}},
	{"history unchecked", "file h seq 5 type h\nfile h seq 5 type h\nfile h seq 1 type h\n",
		&Manifest{History: []File{{"h", 5, History}, {"h", 5, History}, {"h", 1, History}}}},
	{"quoted with escapes", "file \"my aof\\x2e1\\tz\" seq 1 type b\n", &Manifest{Base: base("my aof.1\tz", 1), CurrBaseSeq: 1}},
	{"single quoted", "file 'it\\'s' seq 1 type b\n", &Manifest{Base: base("it's", 1), CurrBaseSeq: 1}},
	{"name cut at NUL", "file \"ab\\x00/c\" seq 1 type b\n", &Manifest{Base: base("ab", 1), CurrBaseSeq: 1}},
	{"empty name", "file \"\" seq 1 type b\n", &Manifest{Base: base("", 1), CurrBaseSeq: 1}},
	{"key cut at NUL", "\"file\\x00zz\" a seq 1 type b\n", &Manifest{Base: base("a", 1), CurrBaseSeq: 1}},
	{"leading and trailing blanks", " \t file a seq 1 type b \t \n", &Manifest{Base: base("a", 1), CurrBaseSeq: 1}},
	{"vertical tab inside a bare token", "file a\vb seq 1 type b\n", &Manifest{Base: base("a\vb", 1), CurrBaseSeq: 1}},
	{"high bytes", "file caf\xc3\xa9 seq 1 type b\n", &Manifest{Base: base("caf\xc3\xa9", 1), CurrBaseSeq: 1}},
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range okCases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

func dump(m *Manifest) string {
	return fmt.Sprintf("base=%+v hist=%+v incr=%+v seqs=%d/%d", m.Base, m.History, m.Incrs, m.CurrBaseSeq, m.CurrIncrSeq)
}

type failReader struct{ data string }

var errDisk = errors.New("disk on fire")

func (f *failReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, errDisk
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestParseReadError(t *testing.T) {
	_, err := Parse(&failReader{data: "file a seq 1 type b\n"})
	if !errors.Is(err, errDisk) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), msgReadFailed) {
		t.Fatalf("err = %v", err)
	}
	// A reader that returns data together with io.EOF is fine.
	m, err := Parse(io.MultiReader(strings.NewReader("file a seq 1 "), strings.NewReader("type b\n")))
	if err != nil || m.Base == nil {
		t.Fatalf("Parse = %v, %v", m, err)
	}
}
