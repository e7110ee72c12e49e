//! Tasks with sub-tasks: created, started, sub-tasks ended by concurrent workers, the task
//! ending itself when the last one ends (completed, or failed naming the failed
//! sub-task), each transition a version with history.
mod common;

use kura_cqrs::tasks::{TaskService, TaskStatus};
use kura_cqrs::{CommandService, DataService, Invoker, ensure_tables};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_end_when_their_sub_tasks_have() {
    let client = common::client().await;
    let tables = common::unique_names("task");
    ensure_tables(&client, &tables).await.expect("tables");
    let tasks = TaskService::new(
        CommandService::new(client.clone(), tables.clone()),
        DataService::new(client.clone(), tables.clone()),
    );
    let invoker = Invoker {
        user_id: "worker".into(),
        ..Invoker::default()
    };

    // Three sub-tasks, ended by three workers at once.
    let key = tasks
        .create(
            "tenant001",
            "resize-images",
            json!({"album": "a1"}),
            vec![json!("img1"), json!("img2"), json!("img3")],
            &invoker,
        )
        .await
        .expect("create");
    tasks.start(&key, &invoker).await.expect("start");
    let view = tasks.get(&key).await.expect("get").expect("task");
    assert_eq!(
        (view.task.status, view.ended, view.sub_tasks.len()),
        (TaskStatus::Started, 0, 3)
    );
    let (a, b, c) = tokio::join!(
        tasks.end_sub_task(&key, 1, Ok(json!({"bytes": 1})), &invoker),
        tasks.end_sub_task(&key, 2, Ok(json!({"bytes": 2})), &invoker),
        tasks.end_sub_task(&key, 3, Ok(json!({"bytes": 3})), &invoker),
    );
    let statuses = [a.expect("1"), b.expect("2"), c.expect("3")];
    assert!(statuses.contains(&TaskStatus::Completed), "{statuses:?}");
    let view = tasks.get(&key).await.expect("get").expect("task");
    assert_eq!((view.task.status, view.ended), (TaskStatus::Completed, 3));
    assert_eq!(view.sub_tasks[1].result, Some(json!({"bytes": 2})));
    // Created, started, completed: three versions, two of them in history.
    assert_eq!(view.task.version(), 3);
    let data = DataService::new(client, tables);
    let history = data.history(&key.pk, &key.sk, 1, 2).await.expect("history");
    let statuses: Vec<&serde_json::Value> =
        history.iter().map(|r| &r.attributes["status"]).collect();
    assert_eq!(statuses, [&json!("CREATED"), &json!("STARTED")]);

    // One sub-task fails: the task fails when the last one ends, naming it.
    let failing = tasks
        .create(
            "tenant001",
            "import",
            json!(null),
            vec![json!(1), json!(2)],
            &invoker,
        )
        .await
        .expect("create");
    tasks.start(&failing, &invoker).await.expect("start");
    let after_first = tasks
        .end_sub_task(&failing, 2, Err("row 7 is not a number".into()), &invoker)
        .await
        .expect("end 2");
    assert_eq!(
        after_first,
        TaskStatus::Started,
        "one sub-task is still running"
    );
    let after_last = tasks
        .end_sub_task(&failing, 1, Ok(json!("done")), &invoker)
        .await
        .expect("end 1");
    assert_eq!(after_last, TaskStatus::Failed);
    let view = tasks.get(&failing).await.expect("get").expect("task");
    assert_eq!(
        view.task.error.as_deref(),
        Some("sub-task 2: row 7 is not a number")
    );

    // A task without sub-tasks is ended by its worker.
    let single = tasks
        .create("tenant001", "report", json!({}), Vec::new(), &invoker)
        .await
        .expect("create");
    tasks.start(&single, &invoker).await.expect("start");
    tasks
        .finish(&single, Ok(json!({"rows": 10})), &invoker)
        .await
        .expect("finish");
    let view = tasks.get(&single).await.expect("get").expect("task");
    assert_eq!(view.task.status, TaskStatus::Completed);
    assert_eq!(view.task.result, Some(json!({"rows": 10})));
}
