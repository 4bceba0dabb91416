module github.com/pact-action/pact-action

go 1.26.0

require (
	github.com/google/go-github/v60 v60.0.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/sethvargo/go-githubactions v1.3.0
	golang.org/x/oauth2 v0.38.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/text v0.14.0 // indirect
)
