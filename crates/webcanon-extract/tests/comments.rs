//! Comments and forum threads (`html::Comments`): each rule of
//! `html::comments` on a fixture, each choice on real pages of the
//! development set (`shared/corpus/extraction`), and the cost of hostile
//! thread shapes.

use std::io::Read;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_extract::charset;
use webcanon_extract::html::{self, Comments, HtmlLimits};

const PAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/extraction/pages");

fn limits() -> HtmlLimits {
    HtmlLimits { time_limit: Duration::from_secs(120), ..HtmlLimits::default() }
}

fn extracted(page: &str, comments: Comments) -> String {
    html::extract_with(page, &Url::parse("https://x.test/t/1").unwrap(), &limits(), comments).markdown
}

/// A development-set page, as `webcanon fetch` converts it with `comments`.
fn corpus_page(key: &str, url: &str, comments: Comments) -> String {
    let path = format!("{PAGES}/{key}.html.gz");
    let mut body = Vec::new();
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    flate2::read::GzDecoder::new(file).read_to_end(&mut body).expect("a gzip page");
    let url = Url::parse(url).expect("a page URL");
    let text = charset::decode(&body, Some("text/html"), Some(&url)).text;
    html::extract_with(&text, &url, &limits(), comments).markdown
}

const OPENING: &str = "My garden pump stopped drawing water after the winter, although the intake hose is \
                       clear and the motor runs without any strange noise at all, so I wonder what to check.";
const REPLY_ONE: &str = "Check the foot valve first: after a frost it often stays open, the column of water \
                         drains back into the well and the pump runs dry for as long as you let it run.";
const REPLY_TWO: &str = "Mine did exactly this last spring, and the cause was a cracked priming plug that let \
                         air in; a new plug and some thread tape fixed it within ten minutes of work.";
const REPLY_THREE: &str = "Also make sure the impeller is not seized: turn the shaft by hand with the power off, \
                           and if it does not move freely, take the housing apart and clean it out.";

/// A forum thread whose replies are named `comment`, marked up by `post`
/// (the attributes of each post block).
fn forum(post: &str) -> String {
    format!(
        "<html><head><title>Pump</title></head><body><nav><a href=/>Forum</a></nav><main><h1>Pump will not draw</h1>\
         <div class=thread><div {post} class=\"post first\"><p>{OPENING}</p></div>\
         <div {post} class=\"post comment\"><p>{REPLY_ONE}</p></div>\
         <div {post} class=\"post comment\"><p>{REPLY_TWO}</p></div>\
         <div {post} class=\"post comment\"><p>{REPLY_THREE}</p></div></div></main>\
         <footer>Forum software</footer></body></html>"
    )
}

#[test]
fn a_thread_by_schema_keeps_its_replies() {
    let page = forum("itemscope itemtype=\"https://schema.org/DiscussionForumPosting\"");
    let text = extracted(&page, Comments::Auto);
    for post in [OPENING, REPLY_ONE, REPLY_TWO, REPLY_THREE] {
        assert!(text.contains(post), "{post} dropped: {text}");
    }
}

#[test]
fn a_thread_by_json_ld_keeps_its_replies() {
    let page = forum("").replace(
        "<title>Pump</title>",
        "<title>Pump</title><script type=\"application/ld+json\">{\"@type\": \"QAPage\"}</script>",
    );
    let page = page.replace("class=\"post ", "class=\"");
    let text = extracted(&page, Comments::Auto);
    for post in [OPENING, REPLY_ONE, REPLY_TWO, REPLY_THREE] {
        assert!(text.contains(post), "{post} dropped: {text}");
    }
}

#[test]
fn a_thread_by_repetition_keeps_its_replies() {
    let page = forum("");
    let text = extracted(&page, Comments::Auto);
    for post in [OPENING, REPLY_ONE, REPLY_TWO, REPLY_THREE] {
        assert!(text.contains(post), "{post} dropped: {text}");
    }
}

#[test]
fn repeated_posts_beside_an_article_are_not_a_thread() {
    let page = forum("")
        .replace("<main>", &format!("<main><article><h2>Care of pumps</h2><p>{OPENING}</p><p>{OPENING}</p></article>"));
    let text = extracted(&page, Comments::Auto);
    assert!(!text.contains(REPLY_ONE), "{text}");
}

/// A blog post followed by comments, marked up by `comment` (the
/// attributes of each comment).
fn article(comment: &str) -> String {
    let story = format!("<p>{OPENING}</p>").repeat(3);
    format!(
        "<html><head><title>Pumps</title></head><body><article><h1>Pumps in spring</h1>{story}</article>\
         <section><h2>Responses</h2><div {comment}><p>{REPLY_ONE}</p></div><div {comment}><p>{REPLY_TWO}</p></div>\
         </section></body></html>"
    )
}

#[test]
fn comment_items_under_an_article_are_not_content() {
    let page = article("itemscope itemtype=\"https://schema.org/Comment\" class=note");
    let text = extracted(&page, Comments::Auto);
    assert!(text.contains(OPENING), "{text}");
    assert!(!text.contains(REPLY_ONE) && !text.contains(REPLY_TWO), "{text}");
}

#[test]
fn include_puts_an_article_s_comments_after_its_text() {
    for markup in ["class=comment", "itemscope itemtype=\"https://schema.org/Comment\""] {
        let page = article(markup);
        let text = extracted(&page, Comments::Include);
        let heading = text.find("## Comments").unwrap_or_else(|| panic!("{markup}: no comments heading: {text}"));
        let (story, comments) = text.split_at(heading);
        assert!(story.contains(OPENING) && !story.contains(REPLY_ONE), "{markup}: {text}");
        assert!(comments.contains(REPLY_ONE) && comments.contains(REPLY_TWO), "{markup}: {text}");
        assert!(!extracted(&page, Comments::Auto).contains("## Comments"), "{markup}");
    }
}

#[test]
fn exclude_keeps_a_thread_s_first_post() {
    let pages = [forum("itemscope itemtype=\"https://schema.org/DiscussionForumPosting\""), forum("")];
    for page in pages {
        let text = extracted(&page, Comments::Exclude);
        assert!(text.contains(OPENING), "{text}");
        for reply in [REPLY_ONE, REPLY_TWO, REPLY_THREE] {
            assert!(!text.contains(reply), "{reply} kept: {text}");
        }
    }
}

#[test]
fn exclude_drops_an_article_s_comments() {
    let text = extracted(&article("class=comment"), Comments::Exclude);
    assert!(text.contains(OPENING) && !text.contains(REPLY_ONE), "{text}");
}

#[test]
fn many_or_deeply_nested_posts_cost_linear_time() {
    let flat =
        format!("<body><div>{}</div></body>", "<div class=\"post comment\"><p>Reply text.</p></div>".repeat(20_000));
    let nested =
        format!("<body>{}Deep reply.{}</body>", "<div class=\"post comment\">".repeat(400), "</div>".repeat(400));
    for page in [flat, nested] {
        for comments in [Comments::Auto, Comments::Include, Comments::Exclude] {
            let started = Instant::now();
            extracted(&page, comments);
            assert!(started.elapsed() < Duration::from_secs(20), "{comments:?}: {:?}", started.elapsed());
        }
    }
}

#[test]
fn a_question_page_keeps_its_answers_and_exclude_keeps_the_question_alone() {
    let (key, url) = (
        "46ea5ee7abaaad43",
        "https://german.stackexchange.com/questions/10376/when-to-use-wurde-versus-war-eg-ich-wurde-ausgeraubt-vs-ich-war-ausgerau",
    );
    let auto = corpus_page(key, url, Comments::Auto);
    let exclude = corpus_page(key, url, Comments::Exclude);
    assert!(
        auto.contains("Ich wurde ausgeraubt") && exclude.contains("Ich wurde ausgeraubt"),
        "{auto}\n---\n{exclude}"
    );
    assert!(
        exclude.len() * 2 < auto.len(),
        "the answers are the page's content under auto, and go under exclude:\n{auto}\n---\n{exclude}"
    );
    assert_eq!(corpus_page(key, url, Comments::Include), auto, "a thread's posts are its content already");
}

#[test]
fn forum_threads_whose_posts_are_article_elements_keep_their_first_post_under_exclude() {
    // Forum software that marks each post `<article class="message">`:
    // a snippet of the first post, then snippets of later posts.
    let threads = [
        (
            "85babb043958a964",
            "https://www.katzen-forum.net/threads/jede-nacht-verliert-pepe-soviel-dreck-aus-dem-fell.230143/",
            "auf seiner beigefarbenen",
            ["Hat er evtl. Milben in den Ohren?", "Eine unserer ersten Katzen hatte auch mal"],
        ),
        (
            "b26adaad6d357bcc",
            "https://villagersandheroes.com/forums/threads/patchnotes-4-47-4-tagundnachtgleiche-bugfix-build.3976/",
            "Die Farbe der Spawn-Ankündigungen wurde geändert auf orange",
            ["zum Schaden aber nur begrenzt beitragen", "Was jeder von Euch daraus nun"],
        ),
    ];
    for (key, url, first, later) in threads {
        let auto = corpus_page(key, url, Comments::Auto);
        let exclude = corpus_page(key, url, Comments::Exclude);
        assert!(auto.contains(first) && exclude.contains(first), "{key}: first post lost:\n{auto}\n---\n{exclude}");
        for reply in later {
            assert!(auto.contains(reply), "{key}: {reply} is the thread's content under auto:\n{auto}");
            assert!(!exclude.contains(reply), "{key}: {reply} kept under exclude:\n{exclude}");
        }
    }
}

/// A blog's index: each `post` block a teaser headed by a link to the
/// post's own page.
fn blog_index(headline: &str) -> String {
    let teaser = |n: usize, text: &str| {
        format!("<div class=\"post\"><h2><a href=\"/2024/{n}\">{headline} {n}</a></h2><p>{text}</p></div>")
    };
    format!(
        "<html><head><title>Garden notes</title></head><body><main><h1>Garden notes</h1><div class=posts>{}{}{}</div>\
         </main></body></html>",
        teaser(1, OPENING),
        teaser(2, REPLY_ONE),
        teaser(3, REPLY_TWO)
    )
}

#[test]
fn a_listing_of_teasers_is_not_a_thread() {
    let listing = blog_index("Pumps after the winter, part");
    let text = extracted(&listing, Comments::Exclude);
    for teaser in [OPENING, REPLY_ONE, REPLY_TWO] {
        assert!(text.contains(teaser), "{teaser} dropped: {text}");
    }
    // Headed by an author's name, the same blocks are a thread's posts.
    let thread = blog_index("Gardener");
    let text = extracted(&thread, Comments::Exclude);
    assert!(text.contains(OPENING) && !text.contains(REPLY_ONE), "{text}");
}

#[test]
fn teaser_checks_cost_linear_time() {
    // Post blocks whose headings hold many links, none a headline, and a
    // page of headlines nested as deep as the caps allow.
    let links = "<a href=/u>name</a>".repeat(10_000);
    let wide =
        format!("<body><div>{}</div></body>", format!("<div class=post><h4>{links}</h4><p>Text.</p></div>").repeat(4));
    let deep = format!(
        "<body><div>{}</div></body>",
        format!(
            "<div class=post><h2>{}<a href=/p>A long headline here</a>{}</h2></div>",
            "<span>".repeat(400),
            "</span>".repeat(400)
        )
        .repeat(50)
    );
    for page in [wide, deep] {
        for comments in [Comments::Auto, Comments::Exclude] {
            let started = Instant::now();
            extracted(&page, comments);
            assert!(started.elapsed() < Duration::from_secs(20), "{comments:?}: {:?}", started.elapsed());
        }
    }
}
