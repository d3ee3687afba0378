//! An agent: a model (OpenAI's chat API, or any server speaking it) that
//! calls this project's tools, in-process. Set OPENAI_API_KEY and
//! OPENAI_MODEL (OPENAI_BASE_URL for a local server, such as Ollama's
//! `http://localhost:11434/v1`), then `cargo run -- "your question"`.

use oxmcp_agent::model::OpenAiChat;
use oxmcp_agent::Event;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let question = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if question.is_empty() {
        eprintln!("{{name}}: ask a question: cargo run -- \"Greet Ada\"");
        return std::process::ExitCode::from(2);
    }
    match run(&question).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{{name}}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(question: &str) -> Result<(), Box<dyn std::error::Error>> {
    let model = OpenAiChat::from_env()?;
    let agent = {{crate}}::agent(model).await?;
    agent
        .run(question)
        .on_event(|event| {
            if let Event::Text(text) = event {
                print!("{text}");
            }
        })
        .await?;
    println!();
    Ok(())
}
