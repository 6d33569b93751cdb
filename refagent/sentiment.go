package refagent

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// sentimentCapability is the fuse capability the sentiment tool belongs to
// (fuse spec, "Request Messages").
const sentimentCapability = "text-analysis"

// sentimentTool is the fuse spec's sentiment-analysis action: the
// sentiment of an English text from a small word list.
func sentimentTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:        "sentiment-analysis",
			Capability:  sentimentCapability,
			Description: "Analyzes the sentiment of an English text: positive, negative or neutral, with a score from -1 to 1 and a confidence.",
			InputSchema: `{"type":"object","properties":{` +
				`"text":{"type":"string","description":"The text to analyze"},` +
				`"language":{"type":"string","description":"The language of the text (ISO code); only en","default":"en"}},` +
				`"required":["text"]}`,
			OutputSchema: `{"type":"object","properties":{"sentiment":{"type":"string","enum":["positive","negative","neutral"]},` +
				`"score":{"type":"number","minimum":-1,"maximum":1},"confidence":{"type":"number","minimum":0,"maximum":1}}}`,
		},
		run: runSentiment,
	}
}

// sentimentReport is sentiment-analysis's result.
type sentimentReport struct {
	Sentiment  string  `json:"sentiment"`
	Score      float64 `json:"score"`
	Confidence float64 `json:"confidence"`
}

func runSentiment(_ context.Context, raw canonical.JSON) answer {
	a, bad := readArgs("sentiment-analysis", raw)
	if bad != nil {
		return *bad
	}
	if !a.has("text") {
		return failed(canonical.ErrInvalidArguments, "sentiment-analysis: argument \"text\" is missing: it must be the text to analyze")
	}
	text, bad := a.text("text")
	if bad != nil {
		return *bad
	}
	lang, bad := a.text("language")
	if bad != nil {
		return *bad
	}
	if l := strings.ToLower(lang); l != "" && l != "en" && !strings.HasPrefix(l, "en-") {
		return failed(canonical.ErrInvalidArguments, "sentiment-analysis: argument \"language\" is %q: only en is supported", lang)
	}
	r := sentiment(text)
	return ok(r, fmt.Sprintf("sentiment-analysis: %s (score %g)", r.Sentiment, r.Score))
}

// The word lists. A negator flips the sentiment of the next sentiment word
// within negationReach words.
var (
	positiveWords = words(`good great excellent love loved loves like liked enjoy enjoyed enjoying happy
		wonderful amazing awesome fantastic nice best better pleased delighted perfect helpful easy
		fast beautiful brilliant glad thanks thank recommend impressive superb works fixed`)
	negativeWords = words(`bad terrible awful hate hated hates dislike poor worst worse sad angry broken
		bug buggy slow horrible disappointing disappointed useless annoying fail failed fails failure
		crash crashes crashed wrong ugly problem confusing frustrating`)
	negators = words(`not no never don't doesn't didn't isn't wasn't aren't can't cannot won't
		hardly nothing dont doesnt didnt isnt wasnt cant wont`)
)

const negationReach = 3

func words(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// sentiment counts the positive and negative words of text. The score is
// (positive - negative) / (positive + negative + 1), the confidence the
// share of sentiment words that agree with the verdict, smoothed:
// (majority + 1) / (positive + negative + 2). Both are rounded to two
// decimals; a text with no sentiment word is neutral, confidence 0.5.
func sentiment(text string) sentimentReport {
	tokens := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
	var pos, neg float64
	since := negationReach + 1 // words since the last negator
	for _, t := range tokens {
		t = strings.Trim(t, "'")
		if negators[t] {
			since = 0
			continue
		}
		since++
		p, n := positiveWords[t], negativeWords[t]
		if !p && !n {
			continue
		}
		if since <= negationReach {
			p, n = n, p
			since = negationReach + 1
		}
		if p {
			pos++
		} else {
			neg++
		}
	}
	score := round2((pos - neg) / (pos + neg + 1))
	if score == 0 {
		score = 0 // not -0
	}
	verdict := "neutral"
	switch {
	case score > 0:
		verdict = "positive"
	case score < 0:
		verdict = "negative"
	}
	return sentimentReport{Sentiment: verdict, Score: score, Confidence: round2((math.Max(pos, neg) + 1) / (pos + neg + 2))}
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
